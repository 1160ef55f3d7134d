import { Deploy, directStatements, isPostgres, preparedPgRows, withGroupedTransaction, type DbOrTrx, type StoredChange } from '../db/index.ts';
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

/** When the check and the crawl of a deploy deployed at `deployedAt` run (CONTRACT section 3). */
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
 * On PostgreSQL a create is one statement (RECORD_SQL): the write CI pipelines send most. An
 * update, and everything on SQLite, runs as a transaction of single statements.
 */
export async function recordDeploy(db: DbOrTrx, workspaceId: string, input: DeployInput, delays: ScheduleDelays): Promise<RecordResult> {
  const p = plan(workspaceId, input, delays);
  if (isPostgres(db)) return (await createInOneStatement(db, p)) ?? recordInTransaction(db, p);
  return recordInTransaction(db, p);
}

// A new deploy in one statement, so one round trip and no BEGIN/COMMIT: the deploy, its check
// and crawl (production only) with their two jobs, and, where the workspace has an active
// webhook, its deploy.recorded event and the event's fan-out job, all committed together or not
// at all. The insert is `ON CONFLICT DO NOTHING`: a deploy that exists already (committed, as
// PostgreSQL makes a conflicting insert wait for the other's commit) returns no row, and the
// update goes the transactional way. (Reading the existing deploy inside this statement, to
// update it here too, made each execution slower the longer its connection had run it: 0.3 ms
// of database CPU rising past 0.9 ms within 6,000 calls on one connection, PostgreSQL 15; an
// insert-only statement stays flat.)
const RECORD_SQL = `
WITH up AS (
  INSERT INTO deploys (id, workspace_id, commit_sha, environment, ref, message, source, deployed_at, changes, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
  ON CONFLICT (workspace_id, environment, commit_sha) DO NOTHING
  RETURNING id, workspace_id
),
created AS (SELECT * FROM up WHERE $4::varchar = '${PRODUCTION}'),
chk AS (
  INSERT INTO site_checks (id, workspace_id, deploy_id, state, trigger_kind, scheduled_at, pages, created_at)
  SELECT $11::uuid, workspace_id, id, 'queued', 'deploy', $12::bigint, '[]', $10::bigint FROM created
  RETURNING id
),
crl AS (
  INSERT INTO site_crawls (id, workspace_id, deploy_id, state, scheduled_at, pages_crawled, created_at)
  SELECT $13::uuid, workspace_id, id, 'queued', $14::bigint, 0, $10::bigint FROM created
  RETURNING id
),
jb AS (
  INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, dedupe_key, created_at, updated_at)
  SELECT $15::uuid, 'site_check', $16::text, 'queued', $12::bigint, 0, $17::int, 'site_check:' || id, $10::bigint, $10::bigint FROM chk
  UNION ALL
  SELECT $18::uuid, 'site_crawl', $19::text, 'queued', $14::bigint, 0, $20::int, 'site_crawl:' || id, $10::bigint, $10::bigint FROM crl
  RETURNING id
),
ev AS (
  INSERT INTO events (id, workspace_id, type, data, created_at, dispatched_at, idempotency_key)
  SELECT $21::uuid, workspace_id, 'deploy.recorded', $22::text, $10::bigint, NULL::bigint, 'deploy.recorded:' || id FROM up
  WHERE EXISTS (SELECT 1 FROM webhooks WHERE workspace_id = $2 AND active)
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id
),
fan AS (
  INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, dedupe_key, created_at, updated_at)
  SELECT $23::uuid, 'webhook_fanout', $24::text, 'queued', $10::bigint, 0, $25::int, 'webhook_fanout:' || id, $10::bigint, $10::bigint FROM ev
  RETURNING id
)
SELECT (SELECT count(*) FROM jb)::int AS scheduled, (SELECT count(*) FROM fan)::int AS fanned_out FROM up`;

// The inserted row is exactly the plan's, so only the counts come back (not the 1 KB row to parse).
type RecordRow = { scheduled: number; fanned_out: number };

/** A new deploy in one statement (RECORD_SQL); null when it exists already. */
async function createInOneStatement(db: DbOrTrx, p: Plan): Promise<RecordResult | null> {
  const f = p.fresh;
  const { checkAt, crawlAt } = runTimes(p, f.deployed_at);
  const checkId = newId();
  const crawlId = newId();
  const eventId = newId();
  // The event describes the deploy as created; it is written only when this call creates it.
  const deploy = Deploy.fromJson(f, { skipValidation: true });
  const eventData = JSON.stringify({ deploy: deployToApi(deploy) });
  const rows = await preparedPgRows<RecordRow>(db, 'record_deploy', RECORD_SQL, [
    f.id,
    f.workspace_id,
    f.commit_sha,
    f.environment,
    f.ref,
    f.message,
    f.source,
    f.deployed_at,
    JSON.stringify(f.changes),
    p.now,
    checkId,
    checkAt,
    crawlId,
    crawlAt,
    newId(),
    JSON.stringify({ checkId }),
    retryPolicy('site_check').maxAttempts,
    newId(),
    JSON.stringify({ crawlId }),
    retryPolicy('site_crawl').maxAttempts,
    eventId,
    eventData,
    newId(),
    JSON.stringify({ eventId }),
    retryPolicy('webhook_fanout').maxAttempts,
  ]);
  if (rows.length === 0) return null;
  const { scheduled, fanned_out: fannedOut } = rows[0];
  if (fannedOut > 0 || (scheduled > 0 && Math.min(checkAt, crawlAt) <= p.now)) wakeWorkersAfterCommit(db);
  return { deploy, created: true, scheduled: scheduled > 0 ? { checkId, crawlId } : null };
}

const INSERT_DEPLOY = `INSERT INTO deploys (id, workspace_id, commit_sha, environment, ref, message, source, deployed_at, changes, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (workspace_id, environment, commit_sha) DO NOTHING RETURNING id`;
const INSERT_CHECK = `INSERT INTO site_checks (id, workspace_id, deploy_id, state, trigger_kind, scheduled_at, pages, created_at) VALUES (?, ?, ?, 'queued', 'deploy', ?, '[]', ?)`;
const INSERT_CRAWL = `INSERT INTO site_crawls (id, workspace_id, deploy_id, state, scheduled_at, pages_crawled, created_at) VALUES (?, ?, ?, 'queued', ?, 0, ?)`;
const INSERT_TWO_JOBS = `INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, dedupe_key, created_at, updated_at)
  VALUES (?, 'site_check', ?, 'queued', ?, 0, ?, ?, ?, ?), (?, 'site_crawl', ?, 'queued', ?, 0, ?, ?, ?, ?)`;

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
          ...[newId(), JSON.stringify({ checkId: scheduled.checkId }), checkAt, retryPolicy('site_check').maxAttempts, `site_check:${scheduled.checkId}`, now, now],
          ...[newId(), JSON.stringify({ crawlId: scheduled.crawlId }), crawlAt, retryPolicy('site_crawl').maxAttempts, `site_crawl:${scheduled.crawlId}`, now, now],
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
