// The bare baselines bench:api compares GET /v1/workspaces/{id} with: minimal Koa (+ @koa/router)
// apps with no auth, no validation, no access check, no error handling, no request id or logging.
// (bench:deploys measures against ../shared/peers instead: bench/lib/peers.ts.)

import crypto from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import type { Db } from '../../core/db/index.ts';

/** One route returning a fixed object (the same JSON a real `GET /v1/workspaces/{id}` returns). */
export function bareWorkspaceApp(body: unknown): Koa {
  const app = new Koa();
  const router = new Router();
  router.get('/v1/workspaces/:id', (ctx) => {
    ctx.body = body;
  });
  app.use(router.routes());
  return app;
}

const isoOf = (ms: number) => new Date(Number(ms)).toISOString();

/**
 * The same route with what the real one reads and nothing else, written as simply as it can be:
 * the key by its SHA-256, then the caller's membership and the workspace row, through the Knex
 * query builder (no validation, scopes, error handling, Objection or request log).
 */
export function bareWorkspaceDbApp(db: Db): Koa {
  const app = new Koa();
  const router = new Router();
  router.get('/v1/workspaces/:id', async (ctx) => {
    const id = ctx.params.id;
    const digest = crypto.createHash('sha256').update(ctx.get('x-api-key')).digest('hex');
    const key = (await db('api_keys').where({ key_hash: digest }).whereNull('revoked_at').first('user_id')) as { user_id: string } | undefined;
    if (!key) {
      ctx.status = 401;
      return;
    }
    const member = (await db('memberships').where({ workspace_id: id, user_id: key.user_id }).first('role')) as { role: string } | undefined;
    const row = member ? ((await db('workspaces').where({ id }).first()) as Record<string, unknown> | undefined) : undefined;
    if (!row) {
      ctx.status = 404;
      return;
    }
    const { account_id: _account, created_at, updated_at, ...rest } = row;
    ctx.body = { data: { ...rest, created_at: isoOf(created_at as number), updated_at: isoOf(updated_at as number) } };
  });
  app.use(router.routes());
  return app;
}
