// A private PostgreSQL cluster for the soak: its own data directory, port and socket directory,
// so restarting it disturbs nobody else's database. initdb refuses to run as root: as root, the
// cluster's commands run as the `postgres` user (runuser) and its directories belong to it.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** The newest /usr/lib/postgresql/<version>/bin with initdb and pg_ctl (SOAK_PG_BIN overrides). */
export function findPgBin(): string {
  const override = process.env.SOAK_PG_BIN;
  if (override) {
    if (!fs.existsSync(path.join(override, 'initdb'))) throw new Error(`SOAK_PG_BIN=${override} has no initdb`);
    return override;
  }
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')) && fs.existsSync(path.join(base, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    : [];
  if (!versions.length) {
    throw new Error(
      'PostgreSQL server binaries not found (no /usr/lib/postgresql/<version>/bin/initdb). The soak runs its own ' +
        'cluster: install them with `apt-get install postgresql` (CI does, in .ci/run), or point SOAK_PG_BIN at a bin directory.',
    );
  }
  return path.join(base, versions[0], 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface RunAs {
  /** Command and arguments, as the cluster's owner. */
  wrap(cmd: string, args: string[]): [string, string[]];
  uid: number;
  gid: number;
}

function runAs(): RunAs {
  if (process.getuid?.() !== 0) {
    return { wrap: (cmd, args) => [cmd, args], uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1 };
  }
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error('running as root, and initdb refuses root: the `postgres` user is needed (it comes with Debian\'s postgresql package)');
  }
  return { wrap: (cmd, args) => ['runuser', ['-u', 'postgres', '--', cmd, ...args]], uid, gid };
}

function run(cmd: string, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout + stderr);
    });
  });
}

/**
 * `pg_ctl stop -m fast` (then `immediate`) on the cluster in `dataDir`, if it runs: the cleanup
 * path, also after an interruption half-way through set-up.
 */
export async function stopClusterIn(dataDir: string): Promise<void> {
  if (!fs.existsSync(path.join(dataDir, 'postmaster.pid'))) return;
  const who = runAs();
  const pgCtl = path.join(findPgBin(), 'pg_ctl');
  const as = (args: string[], timeoutMs: number) => {
    const [c, a] = who.wrap(pgCtl, args);
    return run(c, a, timeoutMs);
  };
  await as(['stop', '-m', 'fast', '-D', dataDir, '-w', '-t', '60'], 90_000).catch(async () => {
    await as(['stop', '-m', 'immediate', '-D', dataDir, '-w', '-t', '30'], 60_000).catch(() => {});
  });
}

export interface PgCluster {
  bin: string;
  version: string;
  port: number;
  /** postgres://<user>@127.0.0.1:<port>/<database> */
  url: string;
  dataDir: string;
  logFile: string;
  /** `pg_ctl restart -m fast`; resolves when the server accepts connections again. */
  restart(): Promise<{ command: string; ms: number }>;
  /** `pg_ctl stop -m fast` (idempotent). */
  stop(): Promise<void>;
}

/**
 * initdb into `<dir>/pg/data` (trust auth, the Node process's user as the superuser), listen on
 * 127.0.0.1:<free port> with the socket in `<dir>/pg/socket`, start, and create `database`.
 */
export async function startCluster(dir: string, database: string): Promise<PgCluster> {
  const bin = findPgBin();
  const who = runAs();
  const user = os.userInfo().username;
  const pgDir = path.join(dir, 'pg');
  const dataDir = path.join(pgDir, 'data');
  const socketDir = path.join(pgDir, 'socket');
  const logFile = path.join(dir, 'logs', 'postgresql.log');
  fs.mkdirSync(socketDir, { recursive: true });
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  // The owner of the cluster must reach its directories (mkdtemp makes them 0700).
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(path.dirname(logFile), 0o777);
  for (const d of [pgDir, socketDir]) fs.chownSync(d, who.uid, who.gid);

  const pgCtl = path.join(bin, 'pg_ctl');
  const as = (cmd: string, args: string[], timeoutMs?: number) => {
    const [c, a] = who.wrap(cmd, args);
    return run(c, a, timeoutMs);
  };
  await as(path.join(bin, 'initdb'), ['-D', dataDir, '-U', user, '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
  const port = await freePort();
  fs.appendFileSync(
    path.join(dataDir, 'postgresql.conf'),
    [
      '',
      '# sitehealth soak',
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${socketDir}'`,
      'max_connections = 200',
      'shared_buffers = 64MB',
      '',
    ].join('\n'),
  );
  const stopNow = () => stopClusterIn(dataDir);
  let version: string;
  try {
    await as(pgCtl, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60']);
    version = (await run(path.join(bin, 'postgres'), ['--version'])).trim();
    const admin = new pg.Client({ connectionString: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${database}`);
    } finally {
      await admin.end();
    }
  } catch (err) {
    await stopNow();
    throw err;
  }

  let stopped = false;
  return {
    bin,
    version,
    port,
    url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`,
    dataDir,
    logFile,
    async restart() {
      const args = ['restart', '-m', 'fast', '-D', dataDir, '-l', logFile, '-w', '-t', '60'];
      const t0 = performance.now();
      await as(pgCtl, args);
      return { command: `pg_ctl ${args.join(' ')}`, ms: Math.round(performance.now() - t0) };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopNow();
    },
  };
}
