// npm run bench:sign-in
//
// Password sign-in (POST /v1/sessions) on SQLite and PostgreSQL (BENCH_PG_URL; BENCH_ENGINES=sqlite
// skips PostgreSQL), through a real API server process: BENCH_SIGN_INS (default 300) sign-ins,
// BENCH_SIGN_IN_CONCURRENCY (default 8) at a time, after 20 discarded ones; then 60 wrong
// passwords (under the per-address limit of 100 a window) and 60 unregistered emails, to show that
// every attempt costs the same one hash. The yardstick is the simplest code that could do the job:
// the same scrypt (N=2^15, r=8, p=1) called in a loop in this process, BENCH_SIGN_IN_CONCURRENCY
// at a time, with no HTTP and no database.
// Writes bench/results/sign-in.md.
import { hashPassword, setPassword, verifyPassword } from '../core/access/index.ts';
import { operatorActor } from '../core/activity/index.ts';
import { bindModels } from '../core/db/index.ts';
import { startServerProcess, killAll } from '../test/support/processes.ts';
import { timed, timedRow, type TimedRun as Run } from './lib/timed.ts';
import { Scratch, createOwner, enginesToRun, machineLines, runBenchmark, writeReport, type Engine } from './lib/harness.ts';

const SIGN_INS = Number(process.env.BENCH_SIGN_INS || 300);
const CONCURRENCY = Number(process.env.BENCH_SIGN_IN_CONCURRENCY || 8);
const WARMUP = 20;
const FAILURES = 60;
const PASSWORD = 'bench password 1';

async function measure(scratch: Scratch, engine: Engine): Promise<Run[]> {
  const { db, url } = await scratch.create(engine);
  bindModels(db);
  const owner = await createOwner(db, 'sign-in');
  const email = (await db('users').where({ id: owner.userId }).first()).email as string;
  await setPassword(db, { userId: owner.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
  const server = await startServerProcess(url, { RATE_LIMIT_PER_MINUTE: '0' });
  const signIn = (body: { email: string; password: string }, expected: number) => async () => {
    const res = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    if (res.status !== expected) throw new Error(`POST /v1/sessions answered ${res.status}, expected ${expected}`);
  };
  // Wrong passwords spread over a few registered users, so none reaches its own limit of 10.
  const others: string[] = [];
  for (let i = 0; i < 6; i++) {
    const u = await createOwner(db, `sign-in-${i}`);
    others.push((await db('users').where({ id: u.userId }).first()).email as string);
  }
  await timed('warm-up', WARMUP, CONCURRENCY, signIn({ email, password: PASSWORD }, 200));
  const runs = [
    await timed(`right password, ${CONCURRENCY} at a time`, SIGN_INS, CONCURRENCY, signIn({ email, password: PASSWORD }, 200)),
    await timed('right password, one at a time', Math.round(SIGN_INS / 5), 1, signIn({ email, password: PASSWORD }, 200)),
    await timed(`wrong password or unknown email, ${CONCURRENCY} at a time`, FAILURES, CONCURRENCY, (i) =>
      signIn(i % 2 ? { email: others[(i >> 1) % others.length], password: `wrong ${i}` } : { email: `nobody.${i}.${email}`, password: 'not it at all' }, 401)(),
    ),
  ];
  await server.stop();
  return runs;
}

async function bareScrypt(): Promise<Run> {
  const digest = await hashPassword(PASSWORD);
  return timed(`bare scrypt in-process, ${CONCURRENCY} at a time`, SIGN_INS, CONCURRENCY, async () => {
    if (!(await verifyPassword(PASSWORD, digest))) throw new Error('scrypt did not verify');
  });
}

const scratch = new Scratch();
await runBenchmark(scratch, async () => {
  const results: Array<{ engine: string; runs: Run[] }> = [{ engine: 'none', runs: [await bareScrypt()] }];
  for (const engine of enginesToRun()) results.push({ engine, runs: await measure(scratch, engine) });
  await killAll();
  const bare = results[0].runs[0].perSecond;
  const row = (engine: string, r: Run) => timedRow(engine, r, bare);
  const lines = [
    '# bench:sign-in',
    '',
    ...machineLines('npm run bench:sign-in').filter((l) => !/^- (Columns|Shared machine|Load)/.test(l)),
    '',
    'One API server process per engine (rate limit off), a fresh database each. A right password answers a session (scrypt check, the session row and its `session.signed_in` security row in one transaction); a wrong password or an unregistered email answers `401 invalid_credentials` after the same one hash (that row alternates the two, and stays under the per-address throttle). "vs bare" compares with scrypt alone, called in a loop in this process at the same concurrency: the most any sign-in could do on this machine.',
    '',
    '| engine | load | attempts | rate | vs bare | p50 (ms) | p99 (ms) | max (ms) |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...results.flatMap((r) => r.runs.map((run) => row(r.engine, run))),
  ];
  writeReport('sign-in.md', lines);
  console.log(lines.join('\n'));
});
