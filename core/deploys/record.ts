import { Deploy, StatementBatcher, directStatements, isDatabaseUnavailable, isPostgres, isRetryableConflict, preparedPgRows, withGroupedTransaction, type DbOrTrx, type StoredChange } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { ValidationFailed, newId, nowMs, redactSecrets } from '../platform/index.ts';
import { recordEvent } from '../events/index.ts';
import { retryPolicy, wakeWorkersAfterCommit } from '../jobs/index.ts';
import { scheduleRun } from './schedule.ts';
import { PRODUCTION, deployToApi } from './deploys.ts';

export type DeployInput = Omit<Schemas['DeployCreate'], 'workspaceId'>;

export interface RecordResult {
  deploy: Deploy;
  created: boolean;
  /** Check and crawl ids (re)scheduled by this call, if any. */
  scheduled: { checkId: string; crawlId: string } | null;
}

export interface ScheduleDelays {
  siteCheckDelaySeconds: number;
  crawlDelaySeconds: number;
}

function normalizeChanges(changes: Schemas['Change'][]): StoredChange[] {
  return changes.map((c) => ({ path: c.path, category: c.category, signals: c.signals ?? [] }));
}

function parseDeployedAt(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new ValidationFailed('deployedAt is not a valid date-time.', [{ in: 'body', path: '/deployedAt', message: 'must be an ISO 8601 date-time with an offset' }]);
  }
  return ms;
}

/** Everything a recording decides before touching the database. */
interface Plan {
  workspaceId: string;
  input: DeployInput;
  now: number;
  sha: string;
  environment: string;
  deployedAt: number | undefined;
  changes: StoredChange[] | undefined;
  /** The row a create inserts. */
  fresh: Omit<Deploy, keyof import('objection').Model> & { changes: StoredChange[] };
  delays: ScheduleDelays;
}

function plan(workspaceId: string, input: DeployInput, delays: ScheduleDelays): Plan {
  const now = nowMs();
  const sha = input.commitSha.toLowerCase();
  const environment = input.environment ?? PRODUCTION;
  const deployedAt = input.deployedAt !== undefined ? parseDeployedAt(input.deployedAt) : undefined;
  const changes = input.changes !== undefined ? normalizeChanges(input.changes) : undefined;
  const fresh = {
    id: newId(),
    workspace_id: workspaceId,
    commit_sha: sha,
    environment,
    ref: input.ref === undefined ? null : redactSecrets(input.ref),
    message: input.message === undefined ? null : redactSecrets(input.message),
    source: changes && changes.length > 0 ? ('cli' as const) : ('webhook' as const),
    deployed_at: deployedAt ?? now,
    changes: changes ?? [],
    created_at: now,
    updated_at: now,
  };
  return { workspaceId, input, now, sha, environment, deployedAt, changes, fresh, delays };
}

/** When the check and the crawl of a deploy deployed at `deployedAt` run (docs/api.md#scheduling-checks-and-crawls). */
function runTimes(p: Plan, deployedAt: number): { checkAt: number; crawlAt: number } {
  const from = Math.max(p.now, deployedAt);
  return { checkAt: from + p.delays.siteCheckDelaySeconds * 1000, crawlAt: from + p.delays.crawlDelaySeconds * 1000 };
}

/**
 * Records a deploy (a key-shaped or `whsec_` string pasted into its message or ref is stored
 * redacted: secrets never sit in the database's free text). Creates it, or updates the one with
 * the same workspace, environment and commit (sha compared lower case), atomically with its
 * scheduled check and crawl and its `deploy.recorded` event. Concurrent identical requests leave
 * exactly one deploy, one check, one crawl and one event.
 *
 * On PostgreSQL a create is one statement (RECORD_SQL), shared with the creates of concurrent
 * requests: the write CI pipelines send most. An update, and everything on SQLite, runs as a
 * transaction of single statements.
 */
export async function recordDeploy(db: DbOrTrx, workspaceId: string, input: DeployInput, delays: ScheduleDelays): Promise<RecordResult> {
  const p = plan(workspaceId, input, delays);
  if (isPostgres(db)) return (await createInOneStatement(db, p)) ?? recordInTransaction(db, p);
  return recordInTransaction(db, p);
}

// New deploys in one statement, so one round trip and no BEGIN/COMMIT: each deploy, its check
// and crawl (production only) with their two jobs, and, where the workspace has an active
// webhook, its deploy.recorded event and the event's fan-out job, all committed together or not
// at all. Concurrent recordings share the statement (core/db/batch.ts: a round trip costs more
// than these inserts), one row of `input` each. The insert is `ON CONFLICT DO NOTHING`: a
// deploy that exists already (committed, as PostgreSQL makes a conflicting insert wait for the
// other's commit, or earlier in the same statement) gets no row, and its update goes the
// transactional way. (Reading the existing deploy inside this statement, to update it here
// too, made each execution slower the longer its connection had run it: 0.3 ms of database
// CPU rising past 0.9 ms within 6,000 calls on one connection, PostgreSQL 15; an insert-only
// statement stays flat.)
const RECORD_SQL = `
WITH input AS (
  SELECT * FROM unnest(
    $1::uuid[], $2::uuid[], $3::varchar[], $4::varchar[], $5::varchar[], $6::text[], $7::varchar[], $8::bigint[], $9::text[], $10::bigint[],
    $11::uuid[], $12::bigint[], $13::uuid[], $14::bigint[], $15::uuid[], $16::text[], $17::uuid[], $18::text[], $19::uuid[], $20::text[], $21::uuid[], $22::text[]
  ) WITH ORDINALITY AS i(id, workspace_id, commit_sha, environment, ref, message, source, deployed_at, changes, now,
    check_id, check_at, crawl_id, crawl_at, check_job_id, check_payload, crawl_job_id, crawl_payload, event_id, event_data, fan_job_id, fan_payload, ord)
),
up AS (
  INSERT INTO deploys (id, workspace_id, commit_sha, environment, ref, message, source, deployed_at, changes, created_at, updated_at)
  SELECT id, workspace_id, commit_sha, environment, ref, message, source, deployed_at, changes, now, now FROM input ORDER BY ord
  ON CONFLICT (workspace_id, environment, commit_sha) DO NOTHING
  RETURNING id
),
created AS (SELECT i.* FROM input i JOIN up USING (id)),
scheduled AS (SELECT * FROM created WHERE environment = '${PRODUCTION}'),
chk AS (
  INSERT INTO site_checks (id, workspace_id, deploy_id, state, trigger_kind, scheduled_at, pages, created_at)
  SELECT check_id, workspace_id, id, 'queued', 'deploy', check_at, '[]', now FROM scheduled
),
crl AS (
  INSERT INTO site_crawls (id, workspace_id, deploy_id, state, scheduled_at, pages_crawled, created_at)
  SELECT crawl_id, workspace_id, id, 'queued', crawl_at, 0, now FROM scheduled
),
jb AS (
  INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, dedupe_key, workspace_id, created_at, updated_at)
  SELECT check_job_id, 'site_check', check_payload, 'queued', check_at, 0, $23::int, 'site_check:' || check_id, workspace_id, now, now FROM scheduled
  UNION ALL
  SELECT crawl_job_id, 'site_crawl', crawl_payload, 'queued', crawl_at, 0, $24::int, 'site_crawl:' || crawl_id, workspace_id, now, now FROM scheduled
),
ev AS (
  INSERT INTO events (id, workspace_id, type, data, created_at, dispatched_at, idempotency_key)
  SELECT event_id, workspace_id, 'deploy.recorded', event_data, now, NULL::bigint, 'deploy.recorded:' || id FROM created c
  WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.workspace_id = c.workspace_id AND w.active)
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id
),
fan AS (
  INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, dedupe_key, workspace_id, created_at, updated_at)
  SELECT fan_job_id, 'webhook_fanout', fan_payload, 'queued', now, 0, $25::int, 'webhook_fanout:' || ev.id, workspace_id, now, now FROM ev JOIN input ON event_id = ev.id
)
SELECT i.id, up.id IS NOT NULL AS created, ev.id IS NOT NULL AS fanned_out
FROM input i LEFT JOIN up ON up.id = i.id LEFT JOIN ev ON ev.id = i.event_id`;

// The inserted row is exactly the plan's, so only what happened comes back (not the 1 KB row).
type RecordRow = { id: string; created: boolean; fanned_out: boolean };

/** One deploy to create, with everything its row of RECORD_SQL's input needs. */
interface Creation {
  p: Plan;
  checkId: string;
  crawlId: string;
  checkAt: number;
  crawlAt: number;
  eventId: string;
  eventData: string;
}

const COLUMNS: Array<(c: Creation) => unknown> = [
  (c) => c.p.fresh.id,
  (c) => c.p.fresh.workspace_id,
  (c) => c.p.fresh.commit_sha,
  (c) => c.p.fresh.environment,
  (c) => c.p.fresh.ref,
  (c) => c.p.fresh.message,
  (c) => c.p.fresh.source,
  (c) => c.p.fresh.deployed_at,
  (c) => JSON.stringify(c.p.fresh.changes),
  (c) => c.p.now,
  (c) => c.checkId,
  (c) => c.checkAt,
  (c) => c.crawlId,
  (c) => c.crawlAt,
  () => newId(),
  (c) => JSON.stringify({ checkId: c.checkId }),
  () => newId(),
  (c) => JSON.stringify({ crawlId: c.crawlId }),
  (c) => c.eventId,
  (c) => c.eventData,
  () => newId(),
  (c) => JSON.stringify({ eventId: c.eventId }),
];

const upsertKey = (c: Creation) => `${c.p.fresh.workspace_id}\u0000${c.p.fresh.environment}\u0000${c.p.fresh.commit_sha}`;

async function createAll(db: DbOrTrx, creations: Creation[]): Promise<RecordRow[]> {
  // Rows go in upsert-key order, so two statements inserting the same keys lock them in the
  // same order and cannot deadlock.
  const ordered = creations
    .map((c) => ({ key: upsertKey(c), c }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ c }) => c);
  const rows = await preparedPgRows<RecordRow>(db, 'record_deploys', RECORD_SQL, [
    ...COLUMNS.map((column) => ordered.map(column)),
    retryPolicy('site_check').maxAttempts,
    retryPolicy('site_crawl').maxAttempts,
    retryPolicy('webhook_fanout').maxAttempts,
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return creations.map((c) => byId.get(c.p.fresh.id)!);
}

type Outcome = RecordRow | { error: unknown };

/** Unavailable errors that come from one row's lock, not from the database as a whole. */
const failsOneRow = (err: unknown) => isRetryableConflict(err) || (err as { code?: unknown }).code === '55P03';

const creator = new StatementBatcher<Creation, Outcome>(
  async (db, creations) => {
    try {
      return await createAll(db, creations);
    } catch (error) {
      // A database that cannot serve (down, unreachable, out of connections) fails every deploy
      // alike: each gets that now, rather than after a retry of its own.
      if (creations.length === 1 || (isDatabaseUnavailable(error) && !failsOneRow(error))) return creations.map(() => ({ error }));
      // One deploy's failure (its workspace deleted meanwhile, a row lock held past the wait)
      // is not the others': alone, each gets its own outcome.
      return Promise.all(creations.map((c) => createAll(db, [c]).then((r) => r[0], (e: unknown) => ({ error: e }))));
    }
  },
  { maxInFlight: 2, maxBatch: 64 },
);

/** A new deploy through RECORD_SQL; null when it exists already. */
async function createInOneStatement(db: DbOrTrx, p: Plan): Promise<RecordResult | null> {
  const f = p.fresh;
  const { checkAt, crawlAt } = runTimes(p, f.deployed_at);
  // The event describes the deploy as created; it is written only when this call creates it.
  const deploy = Deploy.fromJson(f, { skipValidation: true });
  const creation: Creation = { p, checkId: newId(), crawlId: newId(), checkAt, crawlAt, eventId: newId(), eventData: JSON.stringify({ deploy: deployToApi(deploy) }) };
  const outcome = await creator.submit(db, creation);
  if ('error' in outcome) throw outcome.error;
  if (!outcome.created) return null;
  const scheduled = f.environment === PRODUCTION;
  if (outcome.fanned_out || (scheduled && Math.min(checkAt, crawlAt) <= p.now)) wakeWorkersAfterCommit(db);
  return { deploy, created: true, scheduled: scheduled ? { checkId: creation.checkId, crawlId: creation.crawlId } : null };
}

const INSERT_DEPLOY = `INSERT INTO deploys (id, workspace_id, commit_sha, environment, ref, message, source, deployed_at, changes, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (workspace_id, environment, commit_sha) DO NOTHING RETURNING id`;
const INSERT_CHECK = `INSERT INTO site_checks (id, workspace_id, deploy_id, state, trigger_kind, scheduled_at, pages, created_at) VALUES (?, ?, ?, 'queued', 'deploy', ?, '[]', ?)`;
const INSERT_CRAWL = `INSERT INTO site_crawls (id, workspace_id, deploy_id, state, scheduled_at, pages_crawled, created_at) VALUES (?, ?, ?, 'queued', ?, 0, ?)`;
const INSERT_TWO_JOBS = `INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, dedupe_key, workspace_id, created_at, updated_at)
  VALUES (?, 'site_check', ?, 'queued', ?, 0, ?, ?, ?, ?, ?), (?, 'site_crawl', ?, 'queued', ?, 0, ?, ?, ?, ?, ?)`;

/**
 * The same rules one statement at a time in a transaction: every write on SQLite (where the
 * transaction holds the write lock from its start, so nothing can interleave; concurrent
 * recordings share one commit, see withGroupedTransaction), and an update of an existing
 * deploy on PostgreSQL (the deploy row locked first, then its queued check and crawl read).
 * A new deploy's records go straight to the connection (directStatements); the rarer update
 * and move use the models.
 */
async function recordInTransaction(db: DbOrTrx, p: Plan): Promise<RecordResult> {
  const { input, now, sha, environment, deployedAt, changes, workspaceId } = p;
  return withGroupedTransaction(db, async (trx) => {
    const sql = await directStatements(trx);
    const f = p.fresh;
    const inserted = await sql.rows<{ id: string }>(INSERT_DEPLOY, [f.id, f.workspace_id, f.commit_sha, f.environment, f.ref, f.message, f.source, f.deployed_at, JSON.stringify(f.changes), now, now]);

    let deploy: Deploy;
    let created = false;
    let moved = false;
    if (inserted.length > 0) {
      deploy = Deploy.fromJson(f, { skipValidation: true });
      created = true;
    } else {
      const q = Deploy.query(trx).where({ workspace_id: workspaceId, environment, commit_sha: sha }).first();
      if (isPostgres(trx)) q.forUpdate();
      const existing = (await q)!;
      const patch: Partial<Deploy> = { updated_at: Math.max(now, Number(existing.created_at)) };
      if (input.ref !== undefined) patch.ref = f.ref;
      if (input.message !== undefined) patch.message = f.message;
      if (changes !== undefined) {
        patch.changes = changes;
        patch.source = f.source;
      }
      if (deployedAt !== undefined && deployedAt !== Number(existing.deployed_at)) {
        patch.deployed_at = deployedAt;
        moved = true;
      }
      await Deploy.query(trx).findById(existing.id).patch(patch);
      deploy = Deploy.fromJson({ ...existing.toJSON(), ...patch }, { skipValidation: true });
    }

    let scheduled: RecordResult['scheduled'] = null;
    if (environment === PRODUCTION && (created || moved)) {
      const { checkAt, crawlAt } = runTimes(p, Number(deploy.deployed_at));
      if (created) {
        scheduled = { checkId: newId(), crawlId: newId() };
        await sql.rows(INSERT_CHECK, [scheduled.checkId, workspaceId, deploy.id, checkAt, now]);
        await sql.rows(INSERT_CRAWL, [scheduled.crawlId, workspaceId, deploy.id, crawlAt, now]);
        await sql.rows(INSERT_TWO_JOBS, [
          ...[newId(), JSON.stringify({ checkId: scheduled.checkId }), checkAt, retryPolicy('site_check').maxAttempts, `site_check:${scheduled.checkId}`, workspaceId, now, now],
          ...[newId(), JSON.stringify({ crawlId: scheduled.crawlId }), crawlAt, retryPolicy('site_crawl').maxAttempts, `site_crawl:${scheduled.crawlId}`, workspaceId, now, now],
        ]);
        if (Math.min(checkAt, crawlAt) <= now) wakeWorkersAfterCommit(trx);
      } else {
        scheduled = {
          checkId: await scheduleRun(trx, 'site_check', deploy, checkAt, false),
          crawlId: await scheduleRun(trx, 'site_crawl', deploy, crawlAt, false),
        };
      }
    }
    if (created) await recordEvent(trx, workspaceId, 'deploy.recorded', { deploy: deployToApi(deploy) }, { idempotencyKey: `deploy.recorded:${deploy.id}` });
    return { deploy, created, scheduled };
  });
}
