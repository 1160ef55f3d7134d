import type { DbOrTrx } from './db/connection.ts';
import { newId } from './ids.ts';
import { nowMs, toIso } from './clock.ts';

// Every activity row is written here, so the set of kinds and actions stays in one file
// and the reader (GET /v1/activity) and the TypeSpec docs can list them.
//
// Scoping (CONTRACT 1.2): a row about a workspace carries workspace_id AND account_id
// (the account that owns the workspace), so its security rows stay readable by that
// account's users after the workspace is deleted; an account-level row (a limit change,
// an unbound key, two-step verification, ...) has workspace_id null and account_id set.

export const ACTIVITY_KINDS = ['webhook', 'billing', 'security'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const ACTIVITY_ACTIONS = {
  security: [
    'member.joined',
    'member.left',
    'member.role_changed',
    'api_key.created',
    'api_key.revoked',
    'two_factor.enabled',
    'two_factor.disabled',
    'passkey.added',
    'passkey.removed',
    'sso.enabled',
    'sso.disabled',
    'device.signed_in',
    'device.removed',
  ],
  billing: ['workspace_limit.changed', 'workspace_limit.reached'],
  webhook: ['webhook.delivery.succeeded', 'webhook.delivery.failed', 'webhook.paused', 'webhook.enabled'],
} as const satisfies Record<ActivityKind, readonly string[]>;

export type ActivityAction = (typeof ACTIVITY_ACTIONS)[ActivityKind][number];

/**
 * Who did it: `user` or `api_key` for requests; `system` for the worker (automatic
 * pauses, delivery attempts) and for the operator CLI, told apart by the label.
 */
export interface Actor {
  type: 'user' | 'api_key' | 'system';
  id: string | null;
  label: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, label: 'sitehealth' };

/** The admin CLI: the published actor types are user, api_key and system (spec/activity.tsp). */
export function operatorActor(label = 'admin CLI'): Actor {
  return { type: 'system', id: null, label };
}

/** The actor for a request made with an API key (the shape authenticateKey returns). */
export function actorFromAuth(auth: { keyId: string; keyHint?: string | null }): Actor {
  return { type: 'api_key', id: auth.keyId, label: auth.keyHint ?? null };
}

export interface ActivityRow {
  id: string;
  account_id: string | null;
  workspace_id: string | null;
  kind: ActivityKind;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  target_type: string | null;
  target_id: string | null;
  details: string;
  created_at: number;
}

export interface ActivityApi {
  id: string;
  workspace_id: string | null;
  kind: ActivityKind;
  action: string;
  actor: { type: string; id: string | null; label: string | null };
  target: { type: string; id: string | null } | null;
  details: Record<string, unknown>;
  created_at: string;
}

export function activityRowToApi(row: ActivityRow): ActivityApi {
  let details: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.details);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) details = parsed as Record<string, unknown>;
  } catch {
    // A row we cannot parse still belongs in an audit feed; show it without details.
  }
  return {
    id: row.id,
    workspace_id: row.workspace_id ?? null,
    kind: row.kind,
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id ?? null, label: row.actor_label ?? null },
    target: row.target_type ? { type: row.target_type, id: row.target_id ?? null } : null,
    details,
    created_at: toIso(row.created_at)!,
  };
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

interface Insert {
  kind: ActivityKind;
  action: ActivityAction;
  accountId: string | null;
  workspaceId: string | null;
  actor: Actor;
  target: { type: string; id: string | null } | null;
  details: Record<string, unknown>;
  at?: number;
}

async function insert(db: DbOrTrx, row: Insert): Promise<string> {
  const id = newId();
  await db('activity').insert({
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
    details: JSON.stringify(row.details),
    created_at: row.at ?? nowMs(),
  } satisfies ActivityRow);
  return id;
}

async function accountOfWorkspace(db: DbOrTrx, f: WorkspaceScoped): Promise<string | null> {
  if (f.accountId) return f.accountId;
  const ws = (await db('workspaces').where({ id: f.workspaceId }).first('account_id')) as
    | { account_id: string }
    | undefined;
  return ws?.account_id ?? null;
}

async function inWorkspace(
  db: DbOrTrx,
  f: WorkspaceScoped,
  row: Omit<Insert, 'accountId' | 'workspaceId' | 'actor' | 'at'>,
): Promise<string> {
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

export function memberJoined(db: DbOrTrx, f: MemberFields): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'security',
    action: 'member.joined',
    target: { type: 'user', id: f.userId },
    details: { email: f.email ?? null, role: f.role },
  });
}

export function memberLeft(db: DbOrTrx, f: MemberFields): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'security',
    action: 'member.left',
    target: { type: 'user', id: f.userId },
    details: { email: f.email ?? null, role: f.role },
  });
}

export function memberRoleChanged(db: DbOrTrx, f: Omit<MemberFields, 'role'> & { from: string; to: string }): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'security',
    action: 'member.role_changed',
    target: { type: 'user', id: f.userId },
    details: { email: f.email ?? null, from: f.from, to: f.to },
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
  hint: string;
  scopes: readonly string[];
  name?: string | null;
}

function apiKeyRow(f: ApiKeyFields, action: 'api_key.created' | 'api_key.revoked'): Insert {
  return {
    kind: 'security',
    action,
    accountId: f.accountId,
    workspaceId: f.workspaceId,
    actor: f.actor,
    at: f.at,
    target: { type: 'api_key', id: f.keyId },
    details: { user_id: f.userId, hint: f.hint, name: f.name ?? null, scopes: [...f.scopes] },
  };
}

export function apiKeyCreated(db: DbOrTrx, f: ApiKeyFields): Promise<string> {
  return insert(db, apiKeyRow(f, 'api_key.created'));
}

export function apiKeyRevoked(db: DbOrTrx, f: ApiKeyFields): Promise<string> {
  return insert(db, apiKeyRow(f, 'api_key.revoked'));
}

// ------------------------------------------------- security: sign-in (account level)
// Called by the future dashboard; the API itself has no sign-in.

export interface UserSecurityFields extends AccountScoped {
  userId: string;
  email?: string | null;
}

export function twoFactorEnabled(db: DbOrTrx, f: UserSecurityFields & { method?: string | null }): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'security',
    action: 'two_factor.enabled',
    target: { type: 'user', id: f.userId },
    details: { email: f.email ?? null, method: f.method ?? null },
  }));
}

export function twoFactorDisabled(db: DbOrTrx, f: UserSecurityFields & { method?: string | null }): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'security',
    action: 'two_factor.disabled',
    target: { type: 'user', id: f.userId },
    details: { email: f.email ?? null, method: f.method ?? null },
  }));
}

export interface PasskeyFields extends UserSecurityFields {
  passkeyId: string;
  passkeyName?: string | null;
}

export function passkeyAdded(db: DbOrTrx, f: PasskeyFields): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'security',
    action: 'passkey.added',
    target: { type: 'passkey', id: f.passkeyId },
    details: { user_id: f.userId, email: f.email ?? null, name: f.passkeyName ?? null },
  }));
}

export function passkeyRemoved(db: DbOrTrx, f: PasskeyFields): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'security',
    action: 'passkey.removed',
    target: { type: 'passkey', id: f.passkeyId },
    details: { user_id: f.userId, email: f.email ?? null, name: f.passkeyName ?? null },
  }));
}

export interface SsoFields extends AccountScoped {
  provider?: string | null;
}

export function ssoEnabled(db: DbOrTrx, f: SsoFields): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'security',
    action: 'sso.enabled',
    target: { type: 'account', id: f.accountId },
    details: { provider: f.provider ?? null },
  }));
}

export function ssoDisabled(db: DbOrTrx, f: SsoFields): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'security',
    action: 'sso.disabled',
    target: { type: 'account', id: f.accountId },
    details: { provider: f.provider ?? null },
  }));
}

export interface DeviceFields extends UserSecurityFields {
  deviceId: string;
  /** e.g. "Firefox on macOS"; never an IP address or a session token. */
  deviceLabel?: string | null;
}

export function deviceSignedIn(db: DbOrTrx, f: DeviceFields): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'security',
    action: 'device.signed_in',
    target: { type: 'device', id: f.deviceId },
    details: { user_id: f.userId, email: f.email ?? null, device: f.deviceLabel ?? null },
  }));
}

export function deviceRemoved(db: DbOrTrx, f: DeviceFields): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'security',
    action: 'device.removed',
    target: { type: 'device', id: f.deviceId },
    details: { user_id: f.userId, email: f.email ?? null, device: f.deviceLabel ?? null },
  }));
}

// ---------------------------------------------------------------- billing

export function workspaceLimitChanged(db: DbOrTrx, f: AccountScoped & { from: number; to: number }): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'billing',
    action: 'workspace_limit.changed',
    target: { type: 'account', id: f.accountId },
    details: { from: f.from, to: f.to },
  }));
}

/** A workspace creation refused with 402; written outside the rolled-back transaction. */
export function workspaceLimitReached(
  db: DbOrTrx,
  f: AccountScoped & { limit: number; count: number; userId?: string | null },
): Promise<string> {
  return insert(db, inAccount(f, {
    kind: 'billing',
    action: 'workspace_limit.reached',
    target: { type: 'account', id: f.accountId },
    details: { limit: f.limit, workspaces: f.count, user_id: f.userId ?? null },
  }));
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

function deliveryDetails(f: DeliveryFields): Record<string, unknown> {
  return {
    delivery_id: f.deliveryId,
    delivery_key: f.deliveryKey,
    event: f.event,
    attempt: f.attempt,
    response_status: f.responseStatus,
    duration_ms: f.durationMs,
    error: f.error ?? null,
    next_retry_at: f.nextRetryAt == null ? null : toIso(f.nextRetryAt),
  };
}

export function webhookDeliverySucceeded(db: DbOrTrx, f: DeliveryFields): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'webhook',
    action: 'webhook.delivery.succeeded',
    target: { type: 'webhook', id: f.webhookId },
    details: deliveryDetails(f),
  });
}

export function webhookDeliveryFailed(db: DbOrTrx, f: DeliveryFields): Promise<string> {
  return inWorkspace(db, f, {
    kind: 'webhook',
    action: 'webhook.delivery.failed',
    target: { type: 'webhook', id: f.webhookId },
    details: deliveryDetails(f),
  });
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
