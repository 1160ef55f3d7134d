// The bare baselines the real routes are compared with: minimal Koa (+ @koa/router) apps with
// no auth, no validation, no access check, no error handling, no request id or logging.

import crypto from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { v7 as uuidv7 } from 'uuid';
import type { ModelObject } from 'objection';
import type { Db, Deploy } from '../../core/db/index.ts';

type DeployRow = Omit<ModelObject<Deploy>, 'changes'> & { changes: string };

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

interface BareChange {
  path: string;
  category: string;
  signals?: unknown[];
}

interface BareDeployInput {
  workspaceId: string;
  commitSha: string;
  environment?: string;
  ref?: string;
  message?: string;
  changes?: BareChange[];
}

// The row shape only (a type): the bare route runs none of the service's code.
type BareDeployRow = DeployRow;

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

function deployJson(r: BareDeployRow) {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    commitSha: r.commit_sha,
    environment: r.environment,
    ref: r.ref,
    message: r.message,
    source: r.source,
    deployedAt: iso(r.deployed_at),
    changes: JSON.parse(r.changes) as unknown,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/**
 * `POST /v1/deploys`: the same work as core/deploys.ts recordDeploy for a new production deploy,
 * written directly: in one transaction the upsert (INSERT ... ON CONFLICT (workspace_id,
 * environment, commit_sha) DO NOTHING, then read and update on a conflict), a site_check record
 * and its job, a site_crawl record and its job, and the deploy.recorded events row.
 * `GET /v1/deploys`: the same two queries as listDeploys (a page of deploys newest first, then
 * their checks), mapped to the same shape.
 */
export function bareDeploysApp(db: Db): Koa {
  const app = new Koa();
  const router = new Router();

  router.post('/v1/deploys', async (ctx) => {
    const input = JSON.parse(await getRawBody(ctx.req, { limit: 1024 * 1024, encoding: 'utf8' })) as BareDeployInput;
    const now = Date.now();
    const changes = (input.changes ?? []).map((c) => ({ path: c.path, category: c.category, signals: c.signals ?? [] }));
    const fresh: BareDeployRow = {
      id: uuidv7(),
      workspace_id: input.workspaceId,
      commit_sha: input.commitSha.toLowerCase(),
      environment: input.environment ?? 'production',
      ref: input.ref ?? null,
      message: input.message ?? null,
      source: changes.length > 0 ? 'cli' : 'webhook',
      deployed_at: now,
      changes: JSON.stringify(changes),
      created_at: now,
      updated_at: now,
    };
    const deploy = await db.transaction(async (trx) => {
      const inserted = (await trx('deploys')
        .insert(fresh)
        .onConflict(['workspace_id', 'environment', 'commit_sha'])
        .ignore()
        .returning(['id'])) as Array<{ id: string }>;
      if (inserted.length === 0) {
        const existing = (await trx('deploys')
          .where({ workspace_id: fresh.workspace_id, environment: fresh.environment, commit_sha: fresh.commit_sha })
          .first()) as BareDeployRow;
        const patch = { updated_at: now, ref: fresh.ref, message: fresh.message, changes: fresh.changes, source: fresh.source };
        await trx('deploys').where({ id: existing.id }).update(patch);
        return { ...existing, ...patch };
      }
      for (const [table, kind, delayMs] of [
        ['site_checks', 'site_check', 120_000],
        ['site_crawls', 'site_crawl', 300_000],
      ] as const) {
        const id = uuidv7();
        const runAt = now + delayMs;
        const base = { id, workspace_id: fresh.workspace_id, deploy_id: fresh.id, state: 'queued', scheduled_at: runAt, created_at: now };
        await trx(table).insert(table === 'site_checks' ? { ...base, trigger_kind: 'deploy', pages: '[]' } : { ...base, pages_crawled: 0 });
        await trx('jobs').insert({
          id: uuidv7(),
          kind,
          payload: JSON.stringify(kind === 'site_check' ? { checkId: id } : { crawlId: id }),
          state: 'queued',
          run_at: runAt,
          attempts: 0,
          max_attempts: 3,
          dedupe_key: `${kind}:${id}`,
          created_at: now,
          updated_at: now,
        });
      }
      await trx('events').insert({
        id: uuidv7(),
        workspace_id: fresh.workspace_id,
        type: 'deploy.recorded',
        data: JSON.stringify({ deploy: deployJson(fresh) }),
        created_at: now,
        dispatched_at: null,
      });
      return fresh;
    });
    ctx.status = 201;
    ctx.body = deployJson(deploy);
  });

  router.get('/v1/deploys', async (ctx) => {
    const workspaceId = String(ctx.query.workspace_id);
    const limit = Number(ctx.query.limit ?? 50);
    const rows = (await db('deploys')
      .where({ workspace_id: workspaceId })
      .orderBy([
        { column: 'deployed_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)) as BareDeployRow[];
    const checks = new Map<string, Record<string, unknown>>();
    if (rows.length > 0) {
      const found = (await db('site_checks')
        .whereIn(
          'deploy_id',
          rows.map((r) => r.id),
        )
        .orderBy('id', 'desc')) as Array<Record<string, unknown>>;
      for (const c of found) if (!checks.has(c.deploy_id as string)) checks.set(c.deploy_id as string, c);
    }
    ctx.body = {
      data: rows.map((r) => {
        const c = checks.get(r.id);
        return {
          ...deployJson(r),
          siteCheck: c
            ? {
                id: c.id,
                workspaceId: c.workspace_id,
                deployId: c.deploy_id,
                state: c.state,
                trigger: c.trigger_kind,
                scheduledAt: iso(c.scheduled_at as number),
                startedAt: iso(c.started_at as number | null),
                finishedAt: iso(c.finished_at as number | null),
                pages: JSON.parse(c.pages as string) as unknown,
                error: c.error,
              }
            : null,
        };
      }),
    };
  });

  app.use(router.routes());
  return app;
}
