// The soak (bench/soak.ts) for 30 s instead of 180: two API processes and two workers on a
// private PostgreSQL cluster, under load, while a worker is killed (at 10 s) and the database
// restarts (at 15 s); the killed worker's jobs are taken over once their 10 s lease runs out,
// before the load ends. The full three minutes are `npm run soak`'s (bench/results/soak.md).
// Same checks, same exit rule; the report goes to a temp file and is printed when it fails.
// It needs PostgreSQL's server binaries (initdb, pg_ctl), which CI installs: without them it
// fails, saying so, rather than passing without having run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { findPgBin } from '../bench/soak/pg-cluster.ts';
import { root } from './support/processes.ts';

test('soak: 30 s of load over two APIs and two workers on PostgreSQL, a worker killed and the database restarted; nothing lost, nothing run twice at once', { timeout: 8 * 60_000 }, async (t) => {
  try {
    findPgBin();
  } catch (err) {
    assert.fail(`the soak test needs PostgreSQL's server binaries: ${(err as Error).message}`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-soak-test-'));
  const report = path.join(dir, 'soak.md');
  const env: NodeJS.ProcessEnv = { ...process.env, SOAK_SECONDS: '30', SOAK_DRAIN_SECONDS: '120', SOAK_REPORT: report };
  delete env.NODE_TEST_CONTEXT;
  delete env.npm_lifecycle_event;
  const output: string[] = [];
  try {
    // SIGTERM if the test is cancelled or times out: the soak then stops its processes and
    // PostgreSQL; the IPC channel does the same if this process dies.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'soak.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], signal: t.signal });
    child.on('error', () => {});
    child.stdout!.on('data', (b: Buffer) => output.push(b.toString()));
    child.stderr!.on('data', (b: Buffer) => output.push(b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    const text = fs.existsSync(report) ? fs.readFileSync(report, 'utf8') : '(no report written)';
    assert.equal(code, 0, `the soak failed (exit ${code}).\n\n${text}\n\n--- output ---\n${output.join('').slice(-8000)}`);
    assert.match(text, /\*\*PASSED\*\*/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
