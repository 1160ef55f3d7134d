// `npm run soak`: two API processes and two workers on one PostgreSQL keep serving under
// sustained load while one worker is killed and the database restarts; nothing is lost and
// nothing runs twice at once.
//
// Set-up (all in a temp directory, removed at the end, even on failure or Ctrl-C; the processes'
// logs are kept when the soak fails):
// - a private PostgreSQL cluster, so restarting it disturbs nobody: initdb (trust auth, the
//   Node process's user as superuser) with the newest /usr/lib/postgresql/<version>/bin
//   (SOAK_PG_BIN overrides; CI gets them from Debian's postgresql package), listening on
//   127.0.0.1 at a free port with its socket in the temp directory. As root, initdb and pg_ctl
//   run as the `postgres` user (runuser) and the data directory belongs to it;
// - `npm run migrate` and `npm run admin -- bootstrap --json` (account, workspace, key), as an
//   operator does; the workspace's website is the fixture site (test/support/fixture-site.ts,
//   SOAK_SITE_PAGES linked pages with a sitemap);
// - 2 API processes (server/main.ts, own ports) and 2 workers (worker/main.ts), real children
//   with LOG_LEVEL=warn, stdout and stderr in <temp>/logs/<name>.log; a webhook subscribed to
//   every event, pointing at the HTTPS receiver (test/support/https-receiver.ts, trusted through
//   NODE_EXTRA_CA_CERTS), which answers 204 after 100 ms, 5% 500 and 3% 503 with Retry-After.
//   Environment: ALLOW_PRIVATE_NETWORK=1, SITE_CHECK_DELAY_SECONDS=3, CRAWL_DELAY_SECONDS=6,
//   WEBHOOK_RETRY_SCHEDULE=1,2,3,5,8, JOB_LEASE_MS=10000, RATE_LIMIT_PER_MINUTE=100000000.
//
// Load (bench/soak/load.ts): for SOAK_SECONDS (180), SOAK_CLIENTS (20) clients over plain fetch,
// no retries, paced to SOAK_RATE requests/s in all (100), alternating between the two APIs:
// POST /v1/deploys (new production deploys rationed to SOAK_PRODUCTION_PER_SECOND, 1, so the
// workers keep up with their checks and crawls; other environments; repeats of acknowledged
// shas, some upper-cased, some with a new deployedAt that reschedules the check and crawl),
// deploy lists and details, the latest site check, webhook deliveries and their details. Every
// acknowledged deploy goes into a ledger; every answer is counted by process and status and
// checked against the generated OpenAPI document.
//
// Faults: at 1/3 of the run `kill -9` the worker holding the most running jobs (left dead: the
// other must take them over once their lease expires); at 1/2 `pg_ctl restart -m fast`.
//
// Drain: up to SOAK_DRAIN_SECONDS (180) until every check and crawl ended, every event was
// dispatched and delivered, and no job (but maintenance) is queued or running.
//
// Verdict (bench/soak/verify.ts, run.ts), exit 1 unless all hold:
//   1. every acknowledged deploy exists exactly once, under the id it was acknowledged with;
//   2. every production deploy's newest check and crawl are `finished`, nothing else left open;
//   3. every event reached the receiver with a 2xx at least once (event ids in the bodies, delivery
//      keys in webhook-id, signatures verified) and each delivery key's attempts are 1..n;
//   4. no 5xx but 503, no timeout, no unexpected 4xx, every 503 a service_unavailable problem
//      with Retry-After, every response as the contract says; each API answered 503 at least
//      once while the database was down;
//   5. both API processes are the same pids, still running, and served 2xx after the restart;
//   6. nothing ran twice at once: no delivery key sent again while its earlier send was
//      unanswered, no automatic attempt after a successful one, no `lease_lost`/`stale` job in
//      the workers' logs, no lease recovered from a live worker, and no job of the killed worker
//      started again before its lease ran out;
//   7. every 2xx answer is a row of the request log (docs/api.md#request-logs), the outage notwithstanding.
//
// The report is printed, and written to bench/results/soak.md when run as `npm run soak`, or to
// SOAK_REPORT when set (test/soak.test.ts runs the same thing for 30 s). Ctrl-C (or SIGTERM)
// stops the children and PostgreSQL and removes the temp directory.
import fs from 'node:fs';
import path from 'node:path';
import { current, runSoak } from './soak/run.ts';
import { ROOT } from './soak/stack.ts';

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

const reportFile = process.env.SOAK_REPORT || (process.env.npm_lifecycle_event === 'soak' ? path.join(ROOT, 'bench', 'results', 'soak.md') : null);

let interrupted = false;
function interrupt(why: string): void {
  if (interrupted) process.exit(130);
  interrupted = true;
  console.error(`\n${why}: stopping the soak's processes and PostgreSQL, removing its files...`);
  void (current?.cleanup(false) ?? Promise.resolve()).finally(() => process.exit(130));
}
process.on('SIGINT', () => interrupt('SIGINT'));
process.on('SIGTERM', () => interrupt('SIGTERM'));
// Started with an IPC channel (test/soak.test.ts): its parent's end, however it came, ends the soak.
if (process.send) process.on('disconnect', () => interrupt('parent exited'));

try {
  const outcome = await runSoak({
    seconds: envNumber('SOAK_SECONDS', 180),
    drainSeconds: envNumber('SOAK_DRAIN_SECONDS', 180),
    clients: envNumber('SOAK_CLIENTS', 20),
    rate: envNumber('SOAK_RATE', 100),
    productionPerSecond: envNumber('SOAK_PRODUCTION_PER_SECOND', 1),
    sitePages: envNumber('SOAK_SITE_PAGES', 25),
    log: (line) => console.log(line),
  });
  console.log(`\n${outcome.report}`);
  if (reportFile) {
    fs.mkdirSync(path.dirname(reportFile), { recursive: true });
    fs.writeFileSync(reportFile, outcome.report);
    console.log(`report written to ${path.relative(process.cwd(), reportFile) || reportFile}`);
  }
  process.exit(outcome.passed ? 0 : 1);
} catch (err) {
  console.error(`soak failed to run: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
}
