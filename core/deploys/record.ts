import { Deploy, StatementBatcher, isDatabaseUnavailable, isPostgres, isRetryableConflict, runPlan, runPlansOnPostgres, withGroupedTransaction, type DbOrTrx, type Inserted, type PlanRows, type PlanShape, type StoredChange } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { ValidationFailed, newId, nowMs, redactSecrets } from '../platform/index.ts';
import { eventRows, eventSteps } from '../events/index.ts';
import { queuedCheckRows, queuedCheckSteps, rescheduleCheck } from '../checks/index.ts';
import { queuedCrawlRows, queuedCrawlSteps, rescheduleCrawl } from '../crawls/index.ts';
import { PRODUCTION, deployToApi } from './deploys.ts';

export type DeployInput = Omit<Schemas['DeployCreate'], 'workspaceId'>;

export interface RecordResult {
  deploy: Deploy;
  created: boolean;
  /** Check and crawl ids (re)scheduled by this call, if any. */
  scheduled: { checkId: string; crawlId: string } | null;
}

/**
 * A deploy recorded by a connected repository or by a person rather than an API key: its source
 * names the host (or `manual`), and its changes say whether they are partial and why
 * (spec/deploys.tsp).
 */
export interface DeployOrigin {
  source: 'github' | 'gitlab' | 'manual';
  connectionId: string | null;
  changesTruncated: boolean;
  changesNote: string | null;
}

/** A person recording a deploy with a session (the dashboard's form): `source: manual`. */
export const MANUAL_ORIGIN: DeployOrigin = { source: 'manual', connectionId: null, changesTruncated: false, changesNote: null };

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

const DEPLOY_COLUMNS = ['id', 'workspace_id', 'commit_sha', 'environment', 'ref', 'message', 'source', 'deployed_at', 'changes', 'created_at', 'updated_at', 'ci_provider', 'ci_run_url', 'connection_id', 'changes_truncated', 'changes_note'];

const checkQueue = queuedCheckSteps(['deploy']);
const crawlQueue = queuedCrawlSteps(['deploy']);

/**
 * The rule for a new deploy, in one place: the deploy; for production, a queued check and crawl
 * with their two jobs; and, where the workspace has an active webhook, its `deploy.recorded`
 * event with the event's fan-out job. All of it commits together or not at all. A deploy that
 * exists already (same workspace, environment and commit) inserts nothing, and is updated
 * instead (updateExisting).
 */
const NEW_DEPLOY: PlanShape = {
  name: 'record_deploy',
  steps: {
    deploy: { table: 'deploys', columns: DEPLOY_COLUMNS, skipOnConflict: '(workspace_id, environment, commit_sha)' },
    check: checkQueue.check,
    crawl: crawlQueue.crawl,
    // The jobs side by side: SQLite inserts them in one statement.
    check_job: checkQueue.check_job,
    crawl_job: crawlQueue.crawl_job,
    ...eventSteps(['deploy']),
  },
};

/** Everything a recording decides before touching the database. */
interface Draft {
  workspaceId: string;
  input: DeployInput;
  now: number;
  environment: string;
  deployedAt: number | undefined;
  changes: StoredChange[] | undefined;
  /** The row a create inserts. */
  fresh: Omit<Deploy, keyof import('objection').Model> & { changes: StoredChange[] };
  /** The deploy a create answers with. */
  deploy: Deploy;
  delays: ScheduleDelays;
  /** The check and crawl a new production deploy queues. */
  runs: { checkId: string; crawlId: string } | null;
  /** NEW_DEPLOY's rows for this deploy. */
  rows: PlanRows;
}

function draftOf(workspaceId: string, input: DeployInput, delays: ScheduleDelays, origin: DeployOrigin | null): Draft {
  const now = nowMs();
  const environment = input.environment ?? PRODUCTION;
  const deployedAt = input.deployedAt !== undefined ? parseDeployedAt(input.deployedAt) : undefined;
  const changes = input.changes !== undefined ? normalizeChanges(input.changes) : undefined;
  const fresh = {
    id: newId(),
    workspace_id: workspaceId,
    commit_sha: input.commitSha.toLowerCase(),
    environment,
    ref: input.ref === undefined ? null : redactSecrets(input.ref),
    message: input.message === undefined ? null : redactSecrets(input.message),
    source: origin?.source ?? (changes && changes.length > 0 ? ('cli' as const) : ('webhook' as const)),
    deployed_at: deployedAt ?? now,
    changes: changes ?? [],
    created_at: now,
    updated_at: now,
    ci_provider: input.ciProvider ?? null,
    ci_run_url: input.ciRunUrl === undefined ? null : redactSecrets(input.ciRunUrl),
    connection_id: origin?.connectionId ?? null,
    changes_truncated: origin?.changesTruncated ?? false,
    changes_note: origin?.changesNote ?? null,
  };
  const runs = environment === PRODUCTION ? { checkId: newId(), crawlId: newId() } : null;
  const deploy = Deploy.fromJson(fresh, { skipValidation: true });
  const draft: Draft = { workspaceId, input, now, environment, deployedAt, changes, fresh, deploy, delays, runs, rows: {} };
  const { checkAt, crawlAt } = runTimes(draft, fresh.deployed_at);
  // The event describes the deploy as created; it is written only when this call creates it.
  const event = eventRows(workspaceId, 'deploy.recorded', { deploy: deployToApi(deploy) }, { idempotencyKey: `deploy.recorded:${fresh.id}`, now });
  draft.rows = {
    // 0 or 1: SQLite binds no booleans, and PostgreSQL reads '0' and '1' as booleans.
    deploy: { ...fresh, changes: JSON.stringify(fresh.changes), changes_truncated: fresh.changes_truncated ? 1 : 0 },
    ...(runs && queuedCheckRows({ id: runs.checkId, workspaceId, deployId: fresh.id, runAt: checkAt, now })),
    ...(runs && queuedCrawlRows({ id: runs.crawlId, workspaceId, deployId: fresh.id, runAt: crawlAt, now })),
    ...event,
  };
  return draft;
}

/** When the check and the crawl of a deploy deployed at `deployedAt` run (docs/api.md#scheduling-checks-and-crawls). */
function runTimes(draft: Draft, deployedAt: number): { checkAt: number; crawlAt: number } {
  const from = Math.max(draft.now, deployedAt);
  return { checkAt: from + draft.delays.siteCheckDelaySeconds * 1000, crawlAt: from + draft.delays.crawlDelaySeconds * 1000 };
}

function created(draft: Draft): RecordResult {
  return { deploy: draft.deploy, created: true, scheduled: draft.runs };
}

/**
 * Records a deploy (a key-shaped or `whsec_` string pasted into its message or ref is stored
 * redacted: secrets never sit in the database's free text). Creates it (NEW_DEPLOY), or updates
 * the one with the same workspace, environment and commit (sha compared lower case). Concurrent
 * identical requests leave exactly one deploy, one check, one crawl and one event.
 *
 * On PostgreSQL a create is one statement, shared with the creates of concurrent requests: the
 * write CI pipelines send most. An update, and everything on SQLite, runs in a transaction.
 */
export async function recordDeploy(db: DbOrTrx, workspaceId: string, input: DeployInput, delays: ScheduleDelays, origin: DeployOrigin | null = null): Promise<RecordResult> {
  const draft = draftOf(workspaceId, input, delays, origin);
  if (isPostgres(db)) {
    const outcome = await creator.submit(db, draft);
    if ('error' in outcome) throw outcome.error;
    if (outcome.has('deploy')) return created(draft);
  }
  return withGroupedTransaction(db, async (trx) => {
    const inserted = await runPlan(trx, NEW_DEPLOY, draft.rows);
    return inserted.has('deploy') ? created(draft) : updateExisting(trx, draft);
  });
}

// Concurrent creates on PostgreSQL share one execution of NEW_DEPLOY (core/db/batch.ts: a round
// trip costs more than these inserts), without BEGIN/COMMIT. A deploy that exists already
// (committed, as PostgreSQL makes a conflicting insert wait for the other's commit, or earlier
// in the same statement) goes in nowhere, and its update goes the transactional way. (Reading
// the existing deploy inside this statement, to update it here too, made each execution slower
// the longer its connection had run it: 0.3 ms of database CPU rising past 0.9 ms within 6,000
// calls on one connection, PostgreSQL 15; an insert-only statement stays flat.)

type Outcome = Inserted | { error: unknown };

const upsertKey = (d: Draft) => `${d.fresh.workspace_id}\u0000${d.fresh.environment}\u0000${d.fresh.commit_sha}`;

async function createAll(db: DbOrTrx, drafts: Draft[]): Promise<Inserted[]> {
  // Rows go in upsert-key order, so two statements inserting the same keys lock them in the
  // same order and cannot deadlock.
  const ordered = drafts
    .map((d, i) => ({ key: upsertKey(d), i }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ i }) => i);
  const inserted = await runPlansOnPostgres(db, NEW_DEPLOY, ordered.map((i) => drafts[i].rows));
  const out: Inserted[] = new Array(drafts.length);
  ordered.forEach((i, k) => (out[i] = inserted[k]));
  return out;
}

/** Unavailable errors that come from one row's lock, not from the database as a whole. */
const failsOneRow = (err: unknown) => isRetryableConflict(err) || (err as { code?: unknown }).code === '55P03';

const creator = new StatementBatcher<Draft, Outcome>(
  async (db, drafts) => {
    try {
      return await createAll(db, drafts);
    } catch (error) {
      // A database that cannot serve (down, unreachable, out of connections) fails every deploy
      // alike: each gets that now, rather than after a retry of its own.
      if (drafts.length === 1 || (isDatabaseUnavailable(error) && !failsOneRow(error))) return drafts.map(() => ({ error }));
      // One deploy's failure (its workspace deleted meanwhile, a row lock held past the wait)
      // is not the others': alone, each gets its own outcome.
      return Promise.all(drafts.map((d) => createAll(db, [d]).then((r) => r[0], (e: unknown) => ({ error: e }))));
    }
  },
  { maxInFlight: 2, maxBatch: 64 },
);

/**
 * The deploy exists: its ref, message and changes are updated as given, and a moved production
 * deploy moves its queued check and crawl. The row is locked first on PostgreSQL;
 * on SQLite the transaction holds the write lock from its start.
 */
async function updateExisting(trx: DbOrTrx, draft: Draft): Promise<RecordResult> {
  const { input, now, environment, deployedAt, changes, workspaceId, fresh } = draft;
  const q = Deploy.query(trx).where({ workspace_id: workspaceId, environment, commit_sha: fresh.commit_sha }).first();
  if (isPostgres(trx)) q.forUpdate();
  const existing = (await q)!;
  const patch: Partial<Deploy> = { updated_at: Math.max(now, Number(existing.created_at)) };
  if (input.ref !== undefined) patch.ref = fresh.ref;
  if (input.message !== undefined) patch.message = fresh.message;
  if (input.ciProvider !== undefined) patch.ci_provider = fresh.ci_provider;
  if (input.ciRunUrl !== undefined) patch.ci_run_url = fresh.ci_run_url;
  if (changes !== undefined) {
    patch.changes = changes;
    patch.source = fresh.source;
    patch.changes_truncated = fresh.changes_truncated;
    patch.changes_note = fresh.changes_note;
  }
  if (fresh.connection_id !== null) patch.connection_id = fresh.connection_id;
  const moved = deployedAt !== undefined && deployedAt !== Number(existing.deployed_at);
  if (moved) patch.deployed_at = deployedAt;
  await Deploy.query(trx).findById(existing.id).patch(patch);
  const deploy = Deploy.fromJson({ ...existing.toJSON(), ...patch }, { skipValidation: true });
  if (environment !== PRODUCTION || !moved) return { deploy, created: false, scheduled: null };
  const { checkAt, crawlAt } = runTimes(draft, Number(deploy.deployed_at));
  return {
    deploy,
    created: false,
    scheduled: {
      checkId: await rescheduleCheck(trx, deploy, checkAt),
      crawlId: await rescheduleCrawl(trx, deploy, crawlAt),
    },
  };
}
