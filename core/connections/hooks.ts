import crypto from 'node:crypto';
import { verify as verifyGitHubSignature } from '@octokit/webhooks-methods';
import { Connection, runPlan, withTransaction, type Db, type PlanShape } from '../db/index.ts';
import type { Schemas, SignatureSource } from '../contract/index.ts';
import { SYSTEM_ACTOR, connectionVerified } from '../activity/index.ts';
import { jobRow, jobStep } from '../jobs/index.ts';
import { DomainError, NotFound, newId, nowMs } from '../platform/index.ts';
import { signatureHeaders } from '../webhooks/index.ts';
import type { Keyring } from '../secrets/index.ts';
import { findConnection, openSecrets } from './connections.ts';

// Inbound deliveries (spec/connections.tsp, Hooks): authenticated by signature alone, then turned
// into at most one queued deploy per delivery id, in one statement, so the host gets its answer
// at once and the compare runs in the repository_deploy job.

/** A delivery whose signature matched its connection's secret. */
export interface SignedDelivery {
  connection: Connection;
  event: string;
  /** The host's delivery id, or the body's hash when it sent none. */
  deliveryKey: string;
}

const BAD_SIGNATURE = () => new DomainError(401, 'bad_signature', 'Bad signature', 'The delivery is not signed with this connection\'s webhook secret.');

/** Constant-time equality of two strings of any lengths (their digests are compared). */
function sameSecret(a: string, b: string): boolean {
  const da = crypto.createHash('sha256').update(a, 'utf8').digest();
  const db = crypto.createHash('sha256').update(b, 'utf8').digest();
  return crypto.timingSafeEqual(da, db);
}

/** A Standard Webhooks signature (GitLab's signing token) over the id, timestamp and body, within five minutes. */
function standardSignatureMatches(signingToken: string, headers: (name: string) => string, body: string): boolean {
  const id = headers('webhook-id');
  const timestamp = Number(headers('webhook-timestamp'));
  if (!id || !Number.isInteger(timestamp) || Math.abs(nowMs() / 1000 - timestamp) > 300) return false;
  const expected = signatureHeaders({ secrets: [signingToken], id, timestamp, body })['webhook-signature'];
  return headers('webhook-signature')
    .split(' ')
    .some((candidate) => candidate.length === expected.length && crypto.timingSafeEqual(Buffer.from(candidate), Buffer.from(expected)));
}

/**
 * Finds the connection the path names and checks the delivery's signature against its secret
 * (before the body is parsed): 404 for an unknown connection, 401 for a bad or missing signature.
 */
export async function verifyDelivery(
  db: Db,
  source: SignatureSource,
  connectionId: string,
  headers: (name: string) => string,
  body: string,
  keyring: Keyring,
): Promise<SignedDelivery> {
  const connection = await findConnection(db, connectionId);
  if (!connection || connection.provider !== source.scheme) throw new NotFound();
  const secrets = openSecrets(connection, keyring);
  if (source.scheme === 'github') {
    const signature = headers('x-hub-signature-256');
    if (!signature || !(await verifyGitHubSignature(secrets.webhookSecret, body, signature).catch(() => false))) throw BAD_SIGNATURE();
    return { connection, event: headers('x-github-event'), deliveryKey: headers('x-github-delivery') || sha256(body) };
  }
  const token = headers('x-gitlab-token');
  if (!token || !sameSecret(token, secrets.webhookSecret)) throw BAD_SIGNATURE();
  if (secrets.signingToken !== null && headers('webhook-signature') && !standardSignatureMatches(secrets.signingToken, headers, body)) throw BAD_SIGNATURE();
  return { connection, event: headers('x-gitlab-event'), deliveryKey: headers('x-gitlab-event-uuid') || headers('idempotency-key') || sha256(body) };
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** What the deploy job needs of a push or deployment: commit ids, never code. */
export interface DeliveryPayload {
  kind: 'push' | 'deployment';
  branch: string;
  environment: string;
  head: string;
  /** The commit the push moved the branch from; null for a new branch or a deployment. */
  before: string | null;
  /** The push's own commits, oldest first (its first deploy's changes when no deploy came before). */
  commits: string[];
  message: string | null;
  deployedAt: string | null;
  forced: boolean;
}

type Decision = { payload: DeliveryPayload } | { ignored: string };

const ZERO_SHA = /^0+$/;
const SHA = /^[0-9a-fA-F]{7,64}$/;
const asString = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const asObject = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function branchOf(ref: string | null): string | null {
  if (ref === null) return null;
  if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length);
  if (ref.startsWith('refs/')) return null; // a tag or another namespace
  return ref;
}

function commitIds(list: unknown): string[] {
  return Array.isArray(list) ? list.map((c) => asString(asObject(c).id)).filter((id): id is string => id !== null && SHA.test(id)) : [];
}

/** A push: the branch's new head, where it was, and its commits. */
function readPush(c: Connection, body: Record<string, unknown>): Decision {
  const ref = asString(body.ref);
  const branch = branchOf(ref);
  if (branch === null) return { ignored: `${ref ?? 'the ref'} is not a branch` };
  const environment = c.branches[branch];
  if (environment === undefined) return { ignored: `branch ${branch} is not mapped to an environment` };
  const head = asString(body.after) ?? asString(body.checkout_sha);
  if (head === null || !SHA.test(head)) return { ignored: 'the push names no commit' };
  if (ZERO_SHA.test(head) || body.deleted === true) return { ignored: `branch ${branch} was deleted` };
  const before = asString(body.before);
  const headCommit = asObject(body.head_commit);
  const commits = commitIds(body.commits);
  const last = asObject(Array.isArray(body.commits) ? body.commits.find((x) => asObject(x).id === head) : undefined);
  return {
    payload: {
      kind: 'push',
      branch,
      environment,
      head: head.toLowerCase(),
      before: before !== null && SHA.test(before) && !ZERO_SHA.test(before) ? before.toLowerCase() : null,
      commits: commits.map((x) => x.toLowerCase()),
      message: asString(headCommit.message) ?? asString(last.message),
      deployedAt: asString(headCommit.timestamp) ?? asString(last.timestamp),
      forced: body.forced === true,
    },
  };
}

/** A deployment that succeeded, for a mapped ref. */
function readDeployment(c: Connection, ref: string | null, sha: string | null, at: string | null): Decision {
  const branch = branchOf(ref);
  if (branch === null) return { ignored: `${ref ?? 'the ref'} is not a branch` };
  const environment = c.branches[branch];
  if (environment === undefined) return { ignored: `branch ${branch} is not mapped to an environment` };
  if (sha === null || !SHA.test(sha)) return { ignored: 'the deployment names no commit' };
  return { payload: { kind: 'deployment', branch, environment, head: sha.toLowerCase(), before: null, commits: [sha.toLowerCase()], message: null, deployedAt: at, forced: false } };
}

const GITHUB_EVENTS: Record<string, 'push' | 'deployment'> = { push: 'push', deployment_status: 'deployment' };
const GITLAB_EVENTS: Record<string, 'push' | 'deployment'> = { 'Push Hook': 'push', 'Deployment Hook': 'deployment' };

function decide(d: SignedDelivery, body: Record<string, unknown>): Decision {
  const c = d.connection;
  const kind = (c.provider === 'github' ? GITHUB_EVENTS : GITLAB_EVENTS)[d.event];
  if (kind === undefined) return { ignored: `${d.event || 'an unnamed'} event is not recorded` };
  if (kind !== c.trigger_kind) return { ignored: `the connection records ${c.trigger_kind === 'push' ? 'pushes' : 'deployments'}, not ${kind === 'push' ? 'pushes' : 'deployments'}` };
  if (kind === 'push') return readPush(c, body);
  if (c.provider === 'github') {
    const status = asObject(body.deployment_status);
    const deployment = asObject(body.deployment);
    if (status.state !== 'success') return { ignored: `the deployment's state is ${asString(status.state) ?? 'unknown'}, not success` };
    return readDeployment(c, asString(deployment.ref), asString(deployment.sha), asString(status.updated_at) ?? asString(status.created_at));
  }
  if (body.status !== 'success') return { ignored: `the deployment's status is ${asString(body.status) ?? 'unknown'}, not success` };
  return readDeployment(c, asString(body.ref), asString(body.sha), asString(body.status_changed_at));
}

/** A delivery and its job, in one statement: a delivery id seen before inserts neither. */
const QUEUE_DELIVERY: PlanShape = {
  name: 'queue_repository_delivery',
  steps: {
    delivery: {
      table: 'repository_deliveries',
      columns: ['id', 'connection_id', 'workspace_id', 'delivery_key', 'event', 'payload', 'created_at'],
      fixed: { state: 'queued' },
      skipOnConflict: '(connection_id, delivery_key)',
    },
    delivery_job: jobStep('repository_deploy', ['delivery']),
  },
};

/** Marks a connection verified on its first signed delivery, with its activity row. */
async function markVerified(db: Db, d: SignedDelivery): Promise<void> {
  const c = d.connection;
  if (c.state !== 'pending') return;
  await withTransaction(db, async (trx) => {
    const now = nowMs();
    const n = await Connection.query(trx).findById(c.id).where('state', 'pending').patch({ state: 'verified', verified_at: now, updated_at: now });
    if (n > 0) await connectionVerified(trx, { workspaceId: c.workspace_id, actor: SYSTEM_ACTOR, connectionId: c.id, provider: c.provider, repository: c.repository, event: d.event });
  });
}

/** What the hook answers: 202 queued, or 200 with what became of the delivery. */
export async function acceptDelivery(db: Db, d: SignedDelivery, body: Record<string, unknown>): Promise<{ status: 200 | 202; receipt: Schemas['HookReceipt'] }> {
  await markVerified(db, d);
  if (d.connection.provider === 'github' && d.event === 'ping') return { status: 200, receipt: { outcome: 'verified', reason: null } };
  const decision = decide(d, body);
  if ('ignored' in decision) return { status: 200, receipt: { outcome: 'ignored', reason: decision.ignored } };
  const now = nowMs();
  const id = newId();
  const c = d.connection;
  const inserted = await runPlan(db, QUEUE_DELIVERY, {
    delivery: { id, connection_id: c.id, workspace_id: c.workspace_id, delivery_key: d.deliveryKey.slice(0, 128), event: d.event.slice(0, 64), payload: JSON.stringify(decision.payload), created_at: now },
    delivery_job: jobRow('repository_deploy', { deliveryId: id }, { id: newId(), runAt: now, dedupeKey: `repository_deploy:${id}`, workspaceId: c.workspace_id, now }),
  });
  if (!inserted.has('delivery')) return { status: 200, receipt: { outcome: 'duplicate', reason: null } };
  return { status: 202, receipt: { outcome: 'queued', reason: null } };
}
