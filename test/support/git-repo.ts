// Real throwaway git repositories for the SDK's CI tests: no global or system git config, a
// local identity, deterministic branch name.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };

export class GitRepo {
  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static create(prefix = 'sitehealth-ci-'): GitRepo {
    const repo = new GitRepo(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    repo.git('init', '-q', '-b', 'main');
    repo.git('config', 'user.name', 'CI Test');
    repo.git('config', 'user.email', 'ci@example.test');
    repo.git('config', 'commit.gpgsign', 'false');
    repo.git('config', 'core.autocrlf', 'false');
    return repo;
  }

  /** Clones `source` (e.g. `--depth 1 file://...`) into a fresh temporary folder. */
  static clone(args: readonly string[], prefix = 'sitehealth-ci-clone-'): GitRepo {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    execFileSync('git', ['clone', '-q', ...args, dir], { env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    return new GitRepo(dir);
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, env: GIT_ENV, encoding: 'utf8', maxBuffer: 512 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  write(rel: string, content: string | Buffer): void {
    const file = path.join(this.dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }

  remove(rel: string): void {
    fs.rmSync(path.join(this.dir, rel));
  }

  /** Applies `files` (null deletes) and commits everything; returns the commit's SHA. */
  commit(message: string, files: Record<string, string | Buffer | null> = {}): string {
    for (const [rel, content] of Object.entries(files)) {
      if (content === null) this.remove(rel);
      else this.write(rel, content);
    }
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD').trim();
  }

  dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** File content from lines, with the final newline git expects. */
export const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;
