// npm start: migrate, then run the API server and one worker as two child processes.
// SIGINT/SIGTERM are passed on to both; when either exits, the other is stopped and this
// process exits with the first one's code.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../core/config.ts';
import { createDb } from '../core/db/connection.ts';
import { migrateLatest } from '../core/db/migrate.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Migrate once here so the two children never race to do it.
const db = createDb(loadConfig().databaseUrl, { pool: { max: 1 } });
try {
  await migrateLatest(db);
} finally {
  await db.destroy();
}

function run(name: string, entry: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, entry)], {
    cwd: root,
    env: process.env,
    stdio: 'inherit',
    // Own process group: a terminal's Ctrl-C reaches only this process, which passes it on
    // once (the worker treats a second signal as "exit at once").
    detached: true,
  });
  child.on('error', (err) => {
    console.error(`${name}: ${err.message}`);
    finish(1);
  });
  child.on('exit', (code, signal) => {
    exited.add(child);
    if (!stopping) console.error(`${name} exited (${signal ?? code}); stopping the other process`);
    finish(code ?? (signal ? 1 : 0));
  });
  return child;
}

const exited = new Set<ChildProcess>();
let stopping = false;
let exitCode: number | null = null;
const children = [run('server', 'server/main.ts'), run('worker', 'worker/main.ts')];

function stopAll(signal: NodeJS.Signals): void {
  for (const c of children) if (!exited.has(c)) c.kill(signal);
}

function finish(code: number): void {
  exitCode ??= code;
  if (!stopping) {
    stopping = true;
    stopAll('SIGTERM');
  }
  if (children.every((c) => exited.has(c))) process.exit(exitCode);
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) {
      stopAll('SIGKILL');
      process.exit(exitCode ?? 1);
    }
    stopping = true;
    exitCode = 0;
    stopAll(sig);
  });
}
