import type { DbOrTrx } from '../db/index.ts';
import { Activity, Workspace } from '../db/index.ts';
import { newId, nowMs, toIso } from '../platform/index.ts';
import type { Schemas } from '../contract/index.ts';

// Every activity row is written here, so the set of kinds and actions stays in one file
// and the reader (GET /v1/activity) and the TypeSpec docs can list them.
//
// Scoping (docs/api.md#who-sees-which-rows): a row about a workspace carries workspace_id AND account_id
// (the account that owns the workspace), so its security rows stay readable by that
// account's users after the workspace is deleted; an account-level row (a limit change,
// an unbound key) has workspace_id null and account_id set.

export type ActivityKind = Schemas['ActivityKind'];

/**
 * Who did it: `user` or `api_key` for requests; `system` for the worker (automatic
 * pauses, delivery attempts) and for the operator CLI, told apart by the label.
 */
export type Actor = Schemas['ActivityActor'];

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, label: 'sitehealth' };

/** The admin CLI: the published actor types are user, api_key and system (spec/activity.tsp). */
export function operatorActor(label = 'admin CLI'): Actor {
  return { type: 'system', id: null, label };
}

/**
 * The actor for a request made with an API key: the key's id and name, never any part of the
 * key itself (a label is shown to every member, viewers included).
 */
export function keyActor(key: { keyId: string; keyName: string | null; credential?: 'api_key' | 'session' }): Actor {
  return { type: key.credential === 'session' ? 'session' : 'api_key', id: key.keyId, label: key.keyName };
}

/** The actor of a sign-in (or a change made from one session): the session and the user's email. */
export function sessionActor(session: { sessionId: string; email: string }): Actor {
  return { type: 'session', id: session.sessionId, label: session.email };
}

interface Base {
  actor: Actor;
  /** Defaults to now; a delivery attempt passes the time it was made. */
  at?: number;
}

/** Workspace rows: accountId may be omitted and is then read from the workspace. */
interface WorkspaceScoped extends Base {
  workspaceId: string;
  accountId?: string;
}

interface AccountScoped extends Base {
  accountId: string;
}

type Action =
  | 'member.joined'
  | 'member.left'
  | 'member.role_changed'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'api_key.rotated'
  | 'api_key.expired'
  | 'invitation.sent'
  | 'invitation.withdrawn'
  | 'invitation.accepted'
  | 'workspace_limit.changed'
  | 'workspace_limit.reached'
  | 'webhook.delivery.succeeded'
  | 'webhook.delivery.failed'
  | 'webhook.paused'
  | 'webhook.enabled'
  | 'connection.created'
  | 'connection.updated'
  | 'connection.removed'
  | 'connection.verified'
  | 'connection.broken'
  | 'search_console.authorization_started'
  | 'search_console.connected'
  | 'search_console.disconnected'
  | 'search_console.consent_refused'
  | 'search_console.sync_failed'
  | 'search_console.revoked'
  | 'digest.preference_changed'
  | 'digest.unsubscribed'
  | 'digest.sent'
  | UserSecurityAction;

/**
 * Security rows about one user's own sign-in (spec/sign-in.tsp): written to the user's account
 * (workspace_id null), targeting the user, never with a password, code, token or any part of one.
 */
export type UserSecurityAction =
  | 'session.signed_in'
  | 'session.revoked'
  | 'password.changed'
  | 'password.reset'
  | 'password.set_by_operator'
  | 'email.verified'
  | 'sign_in.throttled'
  | 'two_step.enabled'
  | 'two_step.disabled'
  | 'two_step.reset_by_operator'
  | 'recovery_code.used'
  | 'recovery_codes.regenerated'
  | 'passkey.added'
  | 'passkey.removed'
  | 'sso.configured'
  | 'sso.removed'
  | 'sso.required'
  | 'sso.first_sign_in';

interface Insert {
  kind: ActivityKind;
  action: Action;
  accountId: string | null;
  workspaceId: string | null;
  actor: Actor;
  target: { type: string; id: string | null } | null;
  details: Record<string, unknown>;
  at?: number;
}

async function insert(db: DbOrTrx, row: Insert): Promise<string> {
  const id = newId();
  await Activity.query(db).insert({
    id,
    account_id: row.accountId,
    workspace_id: row.workspaceId,
    kind: row.kind,
    action: row.action,
    actor_type: row.actor.type,
    actor_id: row.actor.id,
    actor_label: row.actor.label === null ? null : row.actor.label.slice(0, 320),
    target_type: row.target?.type ?? null,
    target_id: row.target?.id ?? null,
    details: row.details,
    created_at: row.at ?? nowMs(),
  });
  return id;
}

// A workspace never changes account, so what was read once stays true: the webhook delivery path
// writes an activity row per attempt and should not read the workspace each time. Bounded, and
// process-local only in the sense that a miss just reads the row again.
const accounts = new Map<string, string>();
const ACCOUNT_CACHE_SIZE = 10_000;

async function accountOfWorkspace(db: DbOrTrx, f: WorkspaceScoped): Promise<string | null> {
  if (f.accountId) return f.accountId;
  const known = accounts.get(f.workspaceId);
  if (known) return known;
  const ws = await Workspace.query(db).findById(f.workspaceId).select('account_id');
  if (!ws) return null;
  if (accounts.size >= ACCOUNT_CACHE_SIZE) accounts.clear();
  accounts.set(f.workspaceId, ws.account_id);
  return ws.account_id;
}

async function inWorkspace(db: DbOrTrx, f: WorkspaceScoped, row: Omit<Insert, 'accountId' | 'workspaceId' | 'actor' | 'at'>): Promise<string> {
  return insert(db, { ...row, accountId: await accountOfWorkspace(db, f), workspaceId: f.workspaceId, actor: f.actor, at: f.at });
}

function inAccount(f: AccountScoped, row: Omit<Insert, 'accountId' | 'workspaceId' | 'actor' | 'at'>): Insert {
  return { ...row, accountId: f.accountId, workspaceId: null, actor: f.actor, at: f.at };
}

// ---------------------------------------------------------------- security: members

export interface MemberFields extends WorkspaceScoped {
  userId: string;
  email?: string | null;
  role: string;
}

function memberRow(action: 'member.joined' | 'member.left', f: MemberFields) {
  return { kind: 'security' as const, action, target: { type: 'user', id: f.userId }, details: { email: f.email ?? null, role: f.role } };
}

export function memberJoined(db: DbOrTrx, f: MemberFields): Promise<string> {
  return inWorkspace(db, f, memberRow('member.joined', f));
}

export function memberLeft(db: DbOrTrx, f: MemberFields): Promise<string> {
  return inWorkspace(db, f, memberRow('member.left', f));
}

export function memberRoleChanged(db: DbOrTrx, f: Omit<MemberFields, 'role'> & { from: string; to: string }): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'security',
    action: 'member.role_changed',
    target: { type: 'user', id: f.userId },
    details: { email: f.email ?? null, from: f.from, to: f.to },
  });
}

// ---------------------------------------------------------------- security: invitations

export interface InvitationFields extends WorkspaceScoped {
  invitationId: string;
  email: string;
  role: string;
}

/** Never the token: the invitation's id, email and role. */
export function invitationEvent(db: DbOrTrx, action: 'invitation.sent' | 'invitation.withdrawn' | 'invitation.accepted', f: InvitationFields & { userId?: string }): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'security',
    action,
    target: { type: 'invitation', id: f.invitationId },
    details: { email: f.email, role: f.role, ...(f.userId ? { user_id: f.userId } : {}) },
  });
}

// ---------------------------------------------------------------- security: API keys

export interface ApiKeyFields extends Base {
  /** The account the row belongs to: the workspace's for a bound key, else the user's. */
  accountId: string;
  /** Set for a key bound to a workspace; null for an account-level (unbound) key. */
  workspaceId: string | null;
  keyId: string;
  userId: string;
  scopes: readonly string[];
  name?: string | null;
}

function apiKeyRow(f: ApiKeyFields, action: 'api_key.created' | 'api_key.revoked' | 'api_key.rotated' | 'api_key.expired', extra: Record<string, unknown> = {}): Insert {
  // The key's id and name identify it; no part of the key itself is written.
  return {
    kind: 'security',
    action,
    accountId: f.accountId,
    workspaceId: f.workspaceId,
    actor: f.actor,
    at: f.at,
    target: { type: 'api_key', id: f.keyId },
    details: { user_id: f.userId, name: f.name ?? null, scopes: [...f.scopes], ...extra },
  };
}

export function apiKeyCreated(db: DbOrTrx, f: ApiKeyFields): Promise<string> {
  return insert(db, apiKeyRow(f, 'api_key.created'));
}

export function apiKeyRevoked(db: DbOrTrx, f: ApiKeyFields): Promise<string> {
  return insert(db, apiKeyRow(f, 'api_key.revoked'));
}

/** The old key (target) got a successor; it keeps working until `old_expires_at`. */
export function apiKeyRotated(db: DbOrTrx, f: ApiKeyFields & { replacedBy: string; overlapSeconds: number; oldExpiresAt: number }): Promise<string> {
  return insert(db, apiKeyRow(f, 'api_key.rotated', { replaced_by: f.replacedBy, overlap_seconds: f.overlapSeconds, old_expires_at: toIso(f.oldExpiresAt) }));
}

/** The first request made with a key after its `expires_at` (written once per key). */
export function apiKeyExpired(db: DbOrTrx, f: ApiKeyFields & { expiredAt: number }): Promise<string> {
  return insert(db, apiKeyRow(f, 'api_key.expired', { expired_at: toIso(f.expiredAt) }));
}

// ---------------------------------------------------------------- security: people signing in

export interface UserSecurityFields extends Base {
  accountId: string;
  userId: string;
  /** Action-specific facts: never a secret or a fragment of one. */
  details?: Record<string, unknown>;
}

export function userSecurityEvent(db: DbOrTrx, action: UserSecurityAction, f: UserSecurityFields): Promise<string> {
  return insert(db, { kind: 'security', action, accountId: f.accountId, workspaceId: null, actor: f.actor, at: f.at, target: { type: 'user', id: f.userId }, details: f.details ?? {} });
}

// ---------------------------------------------------------------- billing

export function workspaceLimitChanged(db: DbOrTrx, f: AccountScoped & { from: number; to: number }): Promise<string> {
  return insert(
    db,
    inAccount(f, { kind: 'billing', action: 'workspace_limit.changed', target: { type: 'account', id: f.accountId }, details: { from: f.from, to: f.to } }),
  );
}

/** A workspace creation refused with 402; written outside the rolled-back transaction. */
export function workspaceLimitReached(db: DbOrTrx, f: AccountScoped & { limit: number; count: number; userId?: string | null }): Promise<string> {
  return insert(
    db,
    inAccount(f, {
      kind: 'billing',
      action: 'workspace_limit.reached',
      target: { type: 'account', id: f.accountId },
      details: { limit: f.limit, workspaces: f.count, user_id: f.userId ?? null },
    }),
  );
}

// ---------------------------------------------------------------- webhooks

export interface DeliveryFields extends WorkspaceScoped {
  webhookId: string;
  /** The attempt record's id. */
  deliveryId: string;
  deliveryKey: string;
  event: string;
  attempt: number;
  responseStatus: number | null;
  durationMs: number;
  /** Why it failed (timeout, blocked address, ...); never a secret. */
  error?: string | null;
  nextRetryAt?: number | null;
}

function deliveryRow(action: 'webhook.delivery.succeeded' | 'webhook.delivery.failed', f: DeliveryFields) {
  return {
    kind: 'webhook' as const,
    action,
    target: { type: 'webhook', id: f.webhookId },
    details: {
      delivery_id: f.deliveryId,
      delivery_key: f.deliveryKey,
      event: f.event,
      attempt: f.attempt,
      response_status: f.responseStatus,
      duration_ms: f.durationMs,
      error: f.error ?? null,
      next_retry_at: f.nextRetryAt == null ? null : toIso(f.nextRetryAt),
    },
  };
}

export function webhookDeliverySucceeded(db: DbOrTrx, f: DeliveryFields): Promise<string> {
  return inWorkspace(db, f, deliveryRow('webhook.delivery.succeeded', f));
}

export function webhookDeliveryFailed(db: DbOrTrx, f: DeliveryFields): Promise<string> {
  return inWorkspace(db, f, deliveryRow('webhook.delivery.failed', f));
}

export interface WebhookStateFields extends WorkspaceScoped {
  webhookId: string;
  /** e.g. `failure_streak`, `gone` (a 410 answer) or `user`. */
  reason?: string | null;
  failureCount?: number | null;
}

export function webhookPaused(db: DbOrTrx, f: WebhookStateFields): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'webhook',
    action: 'webhook.paused',
    target: { type: 'webhook', id: f.webhookId },
    details: { reason: f.reason ?? null, failure_count: f.failureCount ?? null },
  });
}

export function webhookEnabled(db: DbOrTrx, f: WebhookStateFields): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'webhook',
    action: 'webhook.enabled',
    target: { type: 'webhook', id: f.webhookId },
    details: { reason: f.reason ?? null },
  });
}

// ---------------------------------------------------------------- connected repositories

export interface ConnectionFields extends WorkspaceScoped {
  connectionId: string;
  provider: string;
  repository: string;
}

function connectionRow(kind: ActivityKind, action: Action, f: ConnectionFields, details: Record<string, unknown> = {}) {
  return { kind, action, target: { type: 'connection', id: f.connectionId }, details: { provider: f.provider, repository: f.repository, ...details } };
}

/** A repository connected with a token: a security change (a credential now acts for the workspace). */
export function connectionCreated(db: DbOrTrx, f: ConnectionFields): Promise<string> {
  return inWorkspace(db, f, connectionRow('security', 'connection.created', f));
}

/** A connection's token, signing token or webhook secret changed (`changed` names which), or its settings. */
export function connectionUpdated(db: DbOrTrx, f: ConnectionFields & { changed: string[]; security: boolean }): Promise<string> {
  return inWorkspace(db, f, connectionRow(f.security ? 'security' : 'connection', 'connection.updated', f, { changed: f.changed }));
}

export function connectionRemoved(db: DbOrTrx, f: ConnectionFields): Promise<string> {
  return inWorkspace(db, f, connectionRow('security', 'connection.removed', f));
}

/** The first delivery with a valid signature arrived. */
export function connectionVerified(db: DbOrTrx, f: ConnectionFields & { event: string }): Promise<string> {
  return inWorkspace(db, f, connectionRow('connection', 'connection.verified', f, { event: f.event }));
}

/** The host refused the token. */
export function connectionBroken(db: DbOrTrx, f: ConnectionFields & { reason: string }): Promise<string> {
  return inWorkspace(db, f, connectionRow('connection', 'connection.broken', f, { reason: f.reason }));
}

// ---------------------------------------------------------------- Search Console

export interface SearchConsoleFields extends WorkspaceScoped {
  connectionId: string;
  siteUrl: string;
}

function searchConsoleRow(kind: ActivityKind, action: Action, f: SearchConsoleFields, details: Record<string, unknown> = {}) {
  return { kind, action, target: { type: 'search_console', id: f.connectionId }, details: { siteUrl: f.siteUrl, ...details } };
}

/** An admin started connecting Search Console (a grant is about to be asked of Google). */
export function searchConsoleAuthorizationStarted(db: DbOrTrx, f: SearchConsoleFields): Promise<string> {
  return inWorkspace(db, f, searchConsoleRow('security', 'search_console.authorization_started', f));
}

/** Google granted access: a refresh token now reads Search Console for the workspace. */
export function searchConsoleConnected(db: DbOrTrx, f: SearchConsoleFields & { scope: string | null }): Promise<string> {
  return inWorkspace(db, f, searchConsoleRow('security', 'search_console.connected', f, { scope: f.scope }));
}

export function searchConsoleDisconnected(db: DbOrTrx, f: SearchConsoleFields): Promise<string> {
  return inWorkspace(db, f, searchConsoleRow('security', 'search_console.disconnected', f));
}

/** The user declined at Google's consent screen, or Google would not exchange the code. */
export function searchConsoleConsentRefused(db: DbOrTrx, f: SearchConsoleFields & { reason: string }): Promise<string> {
  return inWorkspace(db, f, searchConsoleRow('connection', 'search_console.consent_refused', f, { reason: f.reason }));
}

/** A sync failed (the first failure after a success; later ones only update the connection). */
export function searchConsoleSyncFailed(db: DbOrTrx, f: SearchConsoleFields & { reason: string; status: number | null }): Promise<string> {
  return inWorkspace(db, f, searchConsoleRow('connection', 'search_console.sync_failed', f, { reason: f.reason, status: f.status }));
}

/** Google refused the refresh token: access was removed or expired; syncs stop until a new grant. */
export function searchConsoleRevoked(db: DbOrTrx, f: SearchConsoleFields & { reason: string }): Promise<string> {
  return inWorkspace(db, f, searchConsoleRow('connection', 'search_console.revoked', f, { reason: f.reason }));
}

// ---------------------------------------------------------------- digests

/**
 * A member's digest choice changed (by the member, or by an unsubscribe link), or a digest went
 * out to them: the member is the target, never the unsubscribe token.
 */
export function digestEvent(
  db: DbOrTrx,
  action: 'digest.preference_changed' | 'digest.unsubscribed' | 'digest.sent',
  f: WorkspaceScoped & { userId: string; details: Record<string, unknown> },
): Promise<string> {
  return inWorkspace(db, f, { kind: 'digest', action, target: { type: 'user', id: f.userId }, details: f.details });
}
