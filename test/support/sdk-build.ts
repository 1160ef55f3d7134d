// The SDK as its bins run it: compiled by tsc into a temporary package folder (dist/, bin/,
// package.json, and node_modules pointing at the repository's), so CLI tests spawn the real
// `bin/sitehealth.mjs` without writing into sdk/dist (another test may be packing it).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface StagedSdk {
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

export async function stageSdk(): Promise<StagedSdk> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-sdk-stage-'));
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'sdk/tsconfig.json'), '--outDir', path.join(dir, 'dist')],
      { cwd: root },
      (err, stdout, stderr) => (err ? reject(new Error(`tsc failed: ${stdout}${stderr}`)) : resolve()),
    );
  });
  fs.cpSync(path.join(root, 'sdk/bin'), path.join(dir, 'bin'), { recursive: true });
  fs.copyFileSync(path.join(root, 'sdk/package.json'), path.join(dir, 'package.json'));
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
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
