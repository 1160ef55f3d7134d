// Real processes for end-to-end tests: API servers, workers and the operator CLI, as a user runs
// them (`node --import tsx <entry>`), talking to each other only through the database and HTTP.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Proc {
  child: ChildProcess;
  pid: number;
  /** Parsed JSON log lines from stdout. */
  lines: Array<Record<string, unknown>>;
  /** Every stdout and stderr line, as text (for diagnostics and greps). */
  output: string[];
  /** Resolves with the exit code (or signal name) once the process is gone and its output read. */
  exited: Promise<number | string | null>;
  /** Resolves when a log line matches. */
  waitForLine(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | string | null>;
}

const running = new Set<Proc>();

/** Kills whatever a test left running (call from `after`). */
export async function killAll(): Promise<void> {
  for (const p of [...running]) await p.stop('SIGKILL');
}

export function startProcess(entry: string | string[], env: Record<string, string>, opts: { detached?: boolean; command?: string } = {}): Proc {
  const args = Array.isArray(entry) ? entry : ['--import', 'tsx', path.join(root, entry)];
  const child = spawn(opts.command ?? process.execPath, args, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  });
  const lines: Array<Record<string, unknown>> = [];
  const output: string[] = [];
  const waiters: Array<{ match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }> = [];
  const onLine = (text: string) => {
    output.push(text);
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    lines.push(rec);
    for (const w of [...waiters]) {
      if (w.match(rec)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(rec);
      }
    }
  };
  readline.createInterface({ input: child.stdout! }).on('line', onLine);
  readline.createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | string | null>((r) => child.on('close', (code, signal) => r(code ?? signal)));
  const proc: Proc = {
    child,
    pid: child.pid!,
    lines,
    output,
    exited,
    waitForLine(match, timeoutMs = 30_000) {
      const hit = lines.find(match);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no matching log line within ${timeoutMs} ms; output:\n${output.slice(-30).join('\n')}`)), timeoutMs);
        waiters.push({
          match,
          resolve: (l) => {
            clearTimeout(t);
            resolve(l);
          },
        });
        void exited.then(() => {
          clearTimeout(t);
          reject(new Error(`process exited before a matching log line; output:\n${output.slice(-30).join('\n')}`));
        });
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return proc;
}

export interface ServerProc extends Proc {
  url: string;
}

/** An API server process (server/main.ts) on a free port. */
export async function startServerProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProc> {
  const p = startProcess('server/main.ts', { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', ...env });
  const line = await p.waitForLine((l) => l.msg === 'sitehealth API listening');
  return Object.assign(p, { url: `http://127.0.0.1:${line.port as number}` });
}

/** A worker process (worker/main.ts). */
export async function startWorkerProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<Proc> {
  const p = startProcess('worker/main.ts', { DATABASE_URL: databaseUrl, WORKER_POLL_MS: '100', ...env });
  await p.waitForLine((l) => l.msg === 'worker ready');
  return p;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, for `--json` commands that succeeded. */
  json: any;
}

/** One operator CLI command as a process (`npm run admin -- ...` runs exactly this). */
export function runCli(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'admin/admin.ts'), ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, ...env }, maxBuffer: 10 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        let json: unknown = undefined;
        try {
          json = JSON.parse(stdout);
        } catch {
          // not JSON
        }
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr, json });
      },
    );
  });
}

/**
 * Whether a process is still running. A zombie (exited, not yet reaped by a parent, as orphans
 * of a container without an init may stay) has stopped: it holds no port and runs no code.
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The process ids below `pid`, read from /proc (Linux). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the ppid follows the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

export async function waitUntil(what: string, fn: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await fn()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
