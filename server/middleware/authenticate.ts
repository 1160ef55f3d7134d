import type { Context, Next } from 'koa';
import type { Db } from '../../core/db/index.ts';
import {
  SESSION_COOKIE,
  authenticateRequest,
  authenticateSession,
  csrfMatches,
  csrfTokenFor,
  looksLikeKey,
  looksLikeSessionToken,
  recordExpiredUse,
  type WorkspaceHint,
} from '../../core/access/index.ts';
import type { Operation } from '../../core/contract/index.ts';
import { InsufficientScope, isUuid, toIso } from '../../core/platform/index.ts';
import { NO_BODY, readBodyText, tryParseJson } from '../body.ts';
import { problem, sendProblem } from '../problem.ts';
import type { OperationState } from '../state.ts';

const UNAUTHORIZED = problem(401, 'unauthorized', 'Unauthorized', 'Send a valid API key in the X-API-Key header.');
const SESSION_ENDED = problem(401, 'unauthorized', 'Unauthorized', 'The session has ended (signed out, revoked or expired): sign in again, or send an API key in the X-API-Key header.');
const CSRF_FAILED = problem(403, 'csrf_failed', 'CSRF token missing or wrong', "Send the session's CSRF token (csrfToken of GET /v1/me) in the X-CSRF-Token header; nothing was changed.");
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The session cookie, when the request is authenticated by it: no X-API-Key header (a key wins) and a cookie. */
function sessionToken(ctx: Context): string | null {
  if (ctx.get('x-api-key') !== '') return null;
  return ctx.cookies.get(SESSION_COOKIE) || null;
}
// The usual mistake, named: the key sent the way other APIs take theirs.
const AUTHORIZATION_SENT = problem(401, 'unauthorized', 'Unauthorized', 'Send the API key in the X-API-Key header: the Authorization header is not read.');

/**
 * A key that cannot be one (wrong shape or checksum), or a session cookie that cannot be one, is
 * refused before anything is read. Without either, the answer asks for a key.
 */
export async function requireCredentialShape(ctx: Context, next: Next): Promise<void> {
  const session = sessionToken(ctx);
  if (session !== null) {
    if (!looksLikeSessionToken(session)) return sendProblem(ctx, SESSION_ENDED);
  } else if (!looksLikeKey(ctx.get('x-api-key'))) {
    return sendProblem(ctx, ctx.get('x-api-key') === '' && ctx.get('authorization') !== '' ? AUTHORIZATION_SENT : UNAUTHORIZED);
  }
  await next();
}

/**
 * Reads the body (up to 1 MiB) before the key is looked up: the workspace it names lets one
 * query return the key, the caller's role in that workspace and the workspace itself.
 */
export async function readBody(ctx: Context, next: Next): Promise<void> {
  const state = ctx.state as OperationState;
  state.bodyText = state.op.def.requestBody ? await readBodyText(ctx, state.op.bodyLimit ?? undefined) : NO_BODY;
  await next();
}

/**
 * The workspace the request names, where the operation's `x-workspace` says to look
 * (spec/main.tsp): a field naming a workspace, or a path id naming a row whose workspace it is.
 */
function workspaceHint(state: OperationState, tableOf: ReadonlyMap<string, string>): WorkspaceHint {
  const source = state.op.workspace;
  if (!source) return null;
  let value: unknown;
  if (source.from === 'path') value = state.params[source.name];
  else if (source.from === 'query') value = state.query[source.name];
  else if (state.bodyText !== NO_BODY) value = (tryParseJson(state.bodyText) as Record<string, unknown> | null | undefined)?.[source.name];
  if (typeof value !== 'string' || !isUuid(value)) return null;
  const id = value.toLowerCase();
  return source.of ? { table: tableOf.get(source.of)!, id } : { workspaceId: id };
}

/**
 * The caller behind the key or the session, read with the workspace the request names
 * (docs/api.md#who-may-do-what). A session's state-changing request must carry its CSRF token
 * (spec/sign-in.tsp), checked before anything else happens.
 */
export function authenticate(db: Db, tableOf: ReadonlyMap<string, string>) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as OperationState;
    const session = sessionToken(ctx);
    if (session !== null) {
      const signedIn = await authenticateSession(db, session, workspaceHint(state, tableOf));
      if (!signedIn) return sendProblem(ctx, SESSION_ENDED);
      if (!SAFE_METHODS.has(ctx.method) && !csrfMatches(session, ctx.get('x-csrf-token'))) return sendProblem(ctx, CSRF_FAILED);
      state.auth = signedIn.auth;
      state.named = signedIn.prefetched;
      state.csrfToken = csrfTokenFor(session);
      return next();
    }
    const authenticated = await authenticateRequest(db, ctx.get('x-api-key'), workspaceHint(state, tableOf));
    if ('refused' in authenticated) {
      if (authenticated.refused === 'unknown') return sendProblem(ctx, UNAUTHORIZED);
      // Audited once per key (the first use after expiry); the answer is the same every time.
      await recordExpiredUse(db, authenticated.keyId);
      return sendProblem(ctx, problem(401, 'key_expired', 'API key expired', `This API key expired at ${toIso(authenticated.expiresAt)}; use the key that replaced it or create a new one.`));
    }
    state.auth = authenticated.auth;
    state.named = authenticated.prefetched;
    await next();
  };
}

const SESSION_REQUIRED = problem(403, 'session_required', 'Session required', 'This operation is about the person signed in: call it with the session cookie (POST /v1/sessions signs in), not an API key.');

/**
 * The operation's `x-scope`: a key without it is refused (after the rate limit has counted it);
 * an operation for people only (`x-credential: session`) refuses keys.
 */
export function requireScope(op: Operation) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const { auth } = ctx.state as OperationState;
    if (op.sessionOnly && auth!.credential !== 'session') return sendProblem(ctx, SESSION_REQUIRED);
    if (op.scope && !(auth!.scopes as string[]).includes(op.scope)) {
      throw new InsufficientScope(op.scope);
    }
    await next();
  };
}
