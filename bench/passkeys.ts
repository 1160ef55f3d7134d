// npm run bench:passkeys
//
// Passkey sign-in (POST /v1/passkey-sign-in/options, then POST /v1/passkey-sign-in) on SQLite and
// PostgreSQL (BENCH_PG_URL; BENCH_ENGINES=sqlite skips PostgreSQL), through a real API server
// process, with the software authenticator of the tests (test/support/webauthn.ts, ES256):
// BENCH_PASSKEY_SIGN_INS (default 300) sign-ins, BENCH_SIGN_IN_CONCURRENCY (default 8) at a time,
// after 20 discarded ones. Each sign-in is two requests: a challenge stored, then the answer
// checked (challenge used up, signature verified, counter moved, session and its audit row
// written). The yardstick is the simplest code that could do the job: @simplewebauthn/server's
// verifyAuthenticationResponse on a pre-made answer, in a loop in this process at the same
// concurrency, with no HTTP and no database. Writes bench/results/passkeys.md.
import crypto from 'node:crypto';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { csrfTokenFor, startSession } from '../core/access/index.ts';
import { bindModels } from '../core/db/index.ts';
import { startServerProcess, killAll } from '../test/support/processes.ts';
import { SoftAuthenticator } from '../test/support/webauthn.ts';
import { timed, timedRow, type TimedRun as Run } from './lib/timed.ts';
import { Scratch, createOwner, enginesToRun, machineLines, runBenchmark, writeReport, type Engine } from './lib/harness.ts';

const SIGN_INS = Number(process.env.BENCH_PASSKEY_SIGN_INS || 300);
const CONCURRENCY = Number(process.env.BENCH_SIGN_IN_CONCURRENCY || 8);
const WARMUP = 20;
const PUBLIC_URL = 'http://localhost:3000';

/** The fields of the answers this benchmark reads. */
interface Answer {
  challengeId: string;
  publicKey: { challenge: string; rp: { id: string }; user: { id: string }; rpId: string };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Answer }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Answer };
}

async function measure(scratch: Scratch, engine: Engine): Promise<Run[]> {
  const { db, url } = await scratch.create(engine);
  bindModels(db);
  const owner = await createOwner(db, 'passkeys');
  const server = await startServerProcess(url, { RATE_LIMIT_PER_MINUTE: '0', PUBLIC_URL });
  const { token } = await startSession(db, { userId: owner.userId, method: 'password', client: { ip: '127.0.0.1', userAgent: 'bench' } });
  const cookie = { cookie: `sitehealth_session=${token}`, 'x-csrf-token': csrfTokenFor(token) };
  // One authenticator per concurrent sign-in: each keeps its own counter, as separate devices do.
  const authenticators = Array.from({ length: CONCURRENCY }, () => new SoftAuthenticator());
  for (const [i, a] of authenticators.entries()) {
    const opts = await post(`${server.url}/v1/passkey-registration/options`, undefined, cookie);
    const made = await post(`${server.url}/v1/passkeys`, { challengeId: opts.json.challengeId, name: `bench ${i}`, response: a.register(opts.json.publicKey, { origin: PUBLIC_URL }) }, cookie);
    if (made.status !== 201) throw new Error(`registration answered ${made.status}: ${JSON.stringify(made.json)}`);
  }
  const free: SoftAuthenticator[] = [...authenticators];
  const signIn = async () => {
    const a = free.pop()!;
    try {
      const opts = await post(`${server.url}/v1/passkey-sign-in/options`, undefined);
      if (opts.status !== 200) throw new Error(`options answered ${opts.status}: ${JSON.stringify(opts.json)}`);
      const done = await post(`${server.url}/v1/passkey-sign-in`, { challengeId: opts.json.challengeId, response: a.authenticate(opts.json.publicKey, { origin: PUBLIC_URL }) });
      if (done.status !== 200) throw new Error(`sign-in answered ${done.status}: ${JSON.stringify(done.json)}`);
    } finally {
      free.push(a);
    }
  };
  // Every request comes from 127.0.0.1, and one address gets 100 challenges in 5 minutes: used ones
  // are deleted between batches, outside the timings, to stay under that cap.
  const clear = () => db('webauthn_challenges').whereNotNull('used_at').del();
  await timed('warm-up', WARMUP, CONCURRENCY, signIn);
  await clear();
  const runs: Run[] = [];
  const batches = async (label: string, total: number, concurrency: number) => {
    const parts: Run[] = [];
    for (let left = total; left > 0; left -= 80) {
      parts.push(await timed(label, Math.min(80, left), concurrency, signIn));
      await clear();
    }
    const seconds = parts.reduce((s, r) => s + r.count / r.perSecond, 0);
    runs.push({ label, count: total, perSecond: total / seconds, latencies: parts.flatMap((r) => r.latencies).sort((x, y) => x - y) });
  };
  await batches(`options + sign-in, ${CONCURRENCY} at a time`, SIGN_INS, CONCURRENCY);
  await batches('options + sign-in, one at a time', Math.round(SIGN_INS / 5), 1);
  await server.stop();
  return runs;
}

async function bareVerify(): Promise<Run> {
  const a = new SoftAuthenticator();
  const rpID = new URL(PUBLIC_URL).hostname;
  const challenge = crypto.randomBytes(32).toString('base64url');
  const registration = a.register({ challenge, rp: { id: rpID }, user: { id: 'AAAAAAAAAAAAAAAAAAAAAA' } });
  const { verifyRegistrationResponse } = await import('@simplewebauthn/server');
  const reg = await verifyRegistrationResponse({ response: registration, expectedChallenge: challenge, expectedOrigin: `https://${rpID}`, expectedRPID: rpID });
  if (!reg.verified) throw new Error('registration did not verify');
  const answer = a.authenticate({ challenge, rpId: rpID });
  return timed(`bare verifyAuthenticationResponse in-process, ${CONCURRENCY} at a time`, SIGN_INS, CONCURRENCY, async () => {
    const v = await verifyAuthenticationResponse({ response: answer, expectedChallenge: challenge, expectedOrigin: `https://${rpID}`, expectedRPID: rpID, credential: { ...reg.registrationInfo.credential, counter: 0 } });
    if (!v.verified) throw new Error('the answer did not verify');
  });
}

const scratch = new Scratch();
await runBenchmark(scratch, async () => {
  const results: Array<{ engine: string; runs: Run[] }> = [{ engine: 'none', runs: [await bareVerify()] }];
  for (const engine of enginesToRun()) results.push({ engine, runs: await measure(scratch, engine) });
  await killAll();
  const bare = results[0].runs[0].perSecond;
  const row = (engine: string, r: Run) => timedRow(engine, r, bare);
  const lines = [
    '# bench:passkeys',
    '',
    ...machineLines('npm run bench:passkeys').filter((l) => !/^- (Columns|Shared machine|Load)/.test(l)),
    '',
    `One API server process per engine (rate limit off, PUBLIC_URL ${PUBLIC_URL}), a fresh database each, ${CONCURRENCY} registered passkeys (software ES256 authenticators, one per concurrent sign-in). A sign-in is two requests: \`POST /v1/passkey-sign-in/options\` (a challenge stored) and \`POST /v1/passkey-sign-in\` (the challenge used up, the signature verified by @simplewebauthn/server, the counter moved, the session and its \`session.signed_in\` row written in one transaction); latencies are of the pair. "vs bare" compares with verifyAuthenticationResponse alone on one pre-made answer, in a loop in this process at the same concurrency: the most any passkey sign-in could do on this machine. Used challenges are deleted between batches of 80 (outside the timings) so the run stays under the per-address cap of 100 challenges in 5 minutes.`,
    '',
    '| engine | load | sign-ins | rate | vs bare | p50 (ms) | p99 (ms) | max (ms) |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...results.flatMap((r) => r.runs.map((run) => row(r.engine, run))),
  ];
  writeReport('passkeys.md', lines);
  console.log(lines.join('\n'));
});
