// The soak's processes: the operator steps a user runs (`npm run migrate`, `npm run admin --
// bootstrap`) and the long-running API servers and workers, each a real child process
// (`node --import tsx <entry>`) whose stdout and stderr go to a file in the logs directory.
// Each child also gets an IPC channel: if the soak itself dies, even by SIGKILL, the channel
// closes and the child stops (core/platform/shutdown.ts).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Child {
  name: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<number | string | null>;
  alive(): boolean;
}

export function spawnLogged(name: string, entry: string, env: NodeJS.ProcessEnv, logsDir: string): Child {
  const logFile = path.join(logsDir, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', fd, fd, 'ipc'],
  });
  fs.closeSync(fd);
  let done = false;
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => {
      done = true;
      resolve(code ?? signal);
    }),
  );
  return { name, pid: child.pid!, child, logFile, exited, alive: () => !done };
}

/** `npm run <script> -- args`, as an operator types it; stdout back, stderr into the log. */
export function npmRun(script: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const all = ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])];
    execFile('npm', all, { cwd: ROOT, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      fs.appendFileSync(logFile, `$ npm ${all.join(' ')}\n${stdout}${stderr}\n`);
      if (err) reject(new Error(`npm ${all.join(' ')} failed (${err.message}): ${stderr.trim().split('\n').slice(-5).join('\n')}`));
      else resolve(stdout);
    });
  });
}

export async function waitFor(what: string, fn: () => Promise<boolean>, timeoutMs: number, child?: Child): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child && !child.alive()) throw new Error(`${child.name} exited while waiting for ${what}; see ${child.logFile}`);
    if (await fn().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** An API server on `port`; resolves once GET /ready answers 200 (the database is reachable). */
export async function startApi(name: string, port: number, env: NodeJS.ProcessEnv, logsDir: string): Promise<Child & { url: string }> {
  const c = spawnLogged(name, 'server/main.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' }, logsDir);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${name} to be ready`, async () => (await fetch(`${url}/ready`)).status === 200, 60_000, c);
  return Object.assign(c, { url });
}

/** Stops a child with SIGTERM (graceful), then SIGKILL after `graceMs`. */
export async function stopChild(c: Child, graceMs = 20_000): Promise<void> {
  if (!c.alive()) return;
  c.child.kill('SIGTERM');
  const t = setTimeout(() => c.child.kill('SIGKILL'), graceMs);
  await c.exited;
  clearTimeout(t);
}
