// The CLI as its bins run it: both packages built by scripts/build-package.mjs (JavaScript only)
// into a folder under the repository's .tmp/: the CLI's dist/, bin/ and package.json, and the
// SDK it imports as node_modules/@sitehealth/sdk; their other dependencies resolve from the
// repository's node_modules further up. CLI tests spawn the real `bin/sitehealth.mjs` without
// writing into sdk/dist or cli/dist (another test may be packing them).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface StagedCli {
  dir: string;
  /** bin/sitehealth.mjs */
  bin: string;
  /** bin/sitehealth-deploy.mjs */
  aliasBin: string;
  dispose(): void;
}

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function buildPackage(args: readonly string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    execFile(process.execPath, [path.join(root, 'scripts/build-package.mjs'), ...args], { cwd: root }, (err, stdout, stderr) =>
      err ? reject(new Error(`build-package ${args.join(' ')} failed: ${stdout}${stderr}`)) : resolve(),
    );
  });
}

export async function stageCli(): Promise<StagedCli> {
  fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, '.tmp', 'cli-stage-'));
  const sdkDir = path.join(dir, 'node_modules', '@sitehealth', 'sdk');
  await Promise.all([
    buildPackage(['sdk', '--out', path.join(sdkDir, 'dist'), '--no-types']),
    buildPackage(['cli', '--out', path.join(dir, 'dist'), '--no-types']),
  ]);
  fs.copyFileSync(path.join(root, 'sdk/package.json'), path.join(sdkDir, 'package.json'));
  fs.cpSync(path.join(root, 'cli/bin'), path.join(dir, 'bin'), { recursive: true });
  fs.copyFileSync(path.join(root, 'cli/package.json'), path.join(dir, 'package.json'));
  return {
    dir,
    bin: path.join(dir, 'bin/sitehealth.mjs'),
    aliasBin: path.join(dir, 'bin/sitehealth-deploy.mjs'),
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The environment of a CI step as the test describes it and nothing else: no variable of the
 * machine running the tests (which may itself be a CI service) leaks in. Git reads no user config.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: os.tmpdir(),
    LANG: 'C.UTF-8',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Runs a bin with `args` in `cwd`, resolving with its exit code and output (never rejects). */
export function runBin(bin: string, args: readonly string[], opts: { cwd: string; env: Record<string, string>; input?: string; timeoutMs?: number }): Promise<BinResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd: opts.cwd, env: opts.env, maxBuffer: 64 << 20, timeout: opts.timeoutMs ?? 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}
