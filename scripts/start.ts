// npm start: migrate, then run the API server and one worker as two child processes.
//
// No orphans, however this process ends:
// - SIGINT/SIGTERM are passed on to both children once; they stop gracefully (in-flight requests
//   finish, running jobs are released after JOB_SHUTDOWN_MS) and this process exits after them.
// - Each child has an IPC channel to this process and stops when it closes: if this process is
//   killed, even with SIGKILL, the kernel closes the channel and the children shut down.
// - If npm dies, we notice (see watchedParents) and stop too.
// - When either child exits, the other is stopped and this process exits with the first code.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../core/platform/index.ts';
import { createDb, migrateLatest } from '../core/db/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Migrate once here so the two children never race to do it.
const db = createDb(loadConfig().databaseUrl, { pool: { max: 1 } });
try {
  await migrateLatest(db);
} finally {
  await db.destroy();
}

const exited = new Set<ChildProcess>();
let stopping = false;
let firstSignalAt = 0;
let exitCode: number | null = null;

function run(name: string, entry: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, entry)], {
    cwd: root,
    env: process.env,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    // Own process group: a terminal's Ctrl-C reaches only this process (and npm), which passes
    // it on once; a child that got it twice would take the second as "exit at once".
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

function onSignal(signal: NodeJS.Signals): void {
  const now = Date.now();
  if (stopping) {
    // npm forwards the terminal's Ctrl-C that already reached us: the same request, not a
    // second one. A later signal means "now".
    if (now - firstSignalAt < 1000) return;
    stopAll('SIGKILL');
    process.exit(exitCode ?? 1);
  }
  stopping = true;
  firstSignalAt = now;
  exitCode = 0;
  stopAll(signal);
}
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));

/**
 * The processes whose death means ours: our parent, and when that is the shell npm runs scripts
 * with (`sh -c`), npm above it too, since the shell outlives a killed npm. Reading a process's
 * parent needs /proc (Linux); elsewhere only the direct parent is watched.
 */
function watchedParents(): number[] {
  const chain = [process.ppid];
  try {
    for (let pid = process.ppid; chain.length < 3; ) {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!/^(sh|dash|bash|zsh)$/.test(name)) break;
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      chain.push(pid);
    }
  } catch {
    // no /proc: the direct parent only
  }
  return chain;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const parents = watchedParents();
setInterval(() => {
  if (!stopping && (process.ppid !== parents[0] || !parents.every(alive))) {
    console.error('npm start: npm exited; stopping');
    onSignal('SIGTERM');
  }
}, 500).unref();
