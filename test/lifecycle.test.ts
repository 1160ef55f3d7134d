// `npm start` as a user runs it: Ctrl-C, SIGTERM or the death of the supervisor leave no process
// behind.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { commandLine, descendants, isAlive, killAll, startProcess, waitUntil, type Proc } from './support/processes.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

interface Started {
  npm: Proc;
  url: string;
  tree: number[];
  server: number;
  worker: number;
  supervisor: number;
}

async function npmStart(): Promise<Started> {
  const databaseUrl = await freshDatabaseUrl('sqlite');
  // detached: npm leads a process group of its own, as a shell's foreground job does, so a
  // signal to the group is what a terminal's Ctrl-C sends.
  const npm = startProcess(['start'], { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', JOB_SHUTDOWN_MS: '2000' }, { command: 'npm', detached: true });
  const listening = await npm.waitForLine((l) => l.msg === 'sitehealth API listening', 60_000);
  await npm.waitForLine((l) => l.msg === 'worker ready', 60_000);
  const url = `http://127.0.0.1:${listening.port as number}`;
  assert.equal((await fetch(`${url}/health`)).status, 200);
  const tree = descendants(npm.pid);
  const find = (needle: string) => {
    const pid = tree.find((p) => commandLine(p).includes(needle));
    assert.ok(pid, `${needle} runs under npm start: ${tree.map(commandLine).join(' | ')}`);
    return pid;
  };
  return { npm, url, tree: [npm.pid, ...tree], server: find('server/main.ts'), worker: find('worker/main.ts'), supervisor: find('scripts/start.ts') };
}

async function allGone(pids: number[], withinMs: number): Promise<number> {
  return waitUntil(`processes ${pids.filter(isAlive).join(', ')} to exit`, () => pids.every((p) => !isAlive(p)), withinMs);
}

describe('npm start lifecycle', () => {
  it('Ctrl-C (SIGINT to the foreground process group) stops every process of the tree within 5 s', async () => {
    const s = await npmStart();
    process.kill(-s.npm.pid, 'SIGINT');
    const ms = await allGone(s.tree, 5000);
    assert.ok(ms <= 5000);
    const out = s.npm.output.join('\n');
    assert.doesNotMatch(out, /second stop request|shutdown took too long/, 'one Ctrl-C is one graceful stop');
  });

  it('SIGTERM to npm stops every process of the tree within 5 s', async () => {
    const s = await npmStart();
    process.kill(s.npm.pid, 'SIGTERM');
    await allGone(s.tree, 5000);
  });

  it('SIGKILL of the supervisor: the server and the worker exit by themselves within 5 s', async () => {
    const s = await npmStart();
    process.kill(s.supervisor, 'SIGKILL');
    await allGone([s.server, s.worker], 5000);
    // And nothing serves on the port any more.
    await assert.rejects(fetch(`${s.url}/health`));
    await allGone(s.tree, 5000);
  });

  it('SIGKILL of npm itself: the supervisor notices and takes its children down within 5 s', async () => {
    const s = await npmStart();
    process.kill(s.npm.pid, 'SIGKILL');
    await allGone(s.tree, 5000);
  });
});
