import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { WorkspaceGuard } from '../../core/access/index.ts';
import type { Db } from '../../core/db/index.ts';
import type { Config, ReferencingField } from '../../core/platform/index.ts';
import type { AnyHandler } from '../handler-types.ts';
import type { Mailer } from '../../core/mail/index.ts';
import type { OperationState } from '../state.ts';

/**
 * The workspace guard for the handler (visibility and roles: 404 before 403), whose first
 * workspace becomes the request log's.
 */
export function guardWorkspaces(db: Db) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as OperationState;
    state.access = new WorkspaceGuard(
      db,
      state.auth!,
      state.named,
      (id) => {
        state.workspaceId ??= id;
      },
      namingField(state),
    );
    await next();
  };
}

/**
 * The body or query field that names the request's workspace, as the operation's `x-workspace`
 * declares it (spec/main.tsp), with the id it gave (the request is valid by now). A path id is
 * not a field: its 404 names nothing (docs/api.md#validation).
 */
function namingField(state: OperationState): (ReferencingField & { id: string }) | null {
  const source = state.op.workspace;
  if (!source || source.of || source.from === 'path') return null;
  const part = source.from === 'query' ? state.query : (state.body as Record<string, unknown> | undefined);
  const id = part?.[source.name];
  return typeof id === 'string' ? { in: source.from, name: source.name, id } : null;
}

/** The cookies the operation declares (`@cookie` in spec/), and nothing else the browser sent. */
function declaredCookies(ctx: Context, state: OperationState): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const p of state.op.parameters) if (p.in === 'cookie') out[p.name] = ctx.cookies.get(p.name) || undefined;
  return out;
}

/** Runs the operation's handler and writes its reply. */
export function dispatch(handler: AnyHandler, o: { db: Db; config: Config; log: Logger; mail: Mailer }) {
  return async (ctx: Context): Promise<void> => {
    const state = ctx.state as OperationState;
    const reply = await handler({
      path: state.params as never,
      query: state.query as never,
      body: state.body as never,
      cookies: declaredCookies(ctx, state) as never,
      auth: state.auth!,
      access: state.access,
      db: o.db,
      config: o.config,
      log: o.log,
      mail: o.mail,
      requestId: state.requestId,
      client: { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null },
      csrfToken: state.csrfToken ?? null,
      hook: state.hook ?? null,
      accepts: (...types: string[]) => ctx.accepts(...types),
    });
    ctx.status = reply.status;
    if (reply.headers) ctx.set(reply.headers);
    if (reply.html !== undefined) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = reply.html;
    } else if (reply.body === undefined && reply.status !== 204) {
      // A redirect's Location says where; Koa would otherwise write its status text as the body.
      ctx.body = '';
    } else if (reply.status !== 204) {
      // Serialized once here: given an object, Koa stringifies it to learn its length (asked by
      // koa-compress) and again to send it, which on a page of large deploys is seconds of CPU.
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(reply.body);
    }
  };
}
