import type { Context, Next } from 'koa';
import type { Db } from '../../core/db/index.ts';
import { EXPOSITION_CONTENT_TYPE, MetricsUnauthorized, metricsGate } from '../../core/metrics/index.ts';
import { serveDocs, serveVersioned } from '../docs.ts';
import { PROBLEM_PAGE_PREFIX, PROBLEM_PAGE_ROUTE, problemPages } from '../problem-pages.ts';
import type { HttpMetrics } from '../metrics.ts';
import type { RequestState } from '../state.ts';

/**
 * The endpoints outside the document, without API keys: probes, metrics, the document
 * (README.md#production) and the pages of problem types (docs/api.md#problem-documents). Each names its own route for the metrics; anything else goes on to the
 * document's operations.
 */
export function serviceRoutes(o: { db: Db; metrics: HttpMetrics; metricsToken: string | null; docJson: string; docTag: string }) {
  const allowMetrics = metricsGate(o.metricsToken);
  const serveProblemPage = problemPages();
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const state = ctx.state as RequestState;
    if (ctx.path === '/health') {
      state.route = '/health';
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/metrics') {
      state.route = '/metrics';
      try {
        allowMetrics({ remoteAddress: ctx.req.socket.remoteAddress, authorization: ctx.get('authorization') });
      } catch (err) {
        if (err instanceof MetricsUnauthorized) ctx.set('www-authenticate', err.challenge);
        throw err;
      }
      ctx.type = EXPOSITION_CONTENT_TYPE;
      ctx.body = await o.metrics.text();
      return;
    }
    if (ctx.path === '/ready') {
      state.route = '/ready';
      try {
        await o.db.raw('select 1');
        ctx.body = { status: 'ok' };
      } catch {
        ctx.status = 503;
        ctx.body = { status: 'unavailable' };
      }
      return;
    }
    if (ctx.path === '/openapi.json') {
      state.route = '/openapi.json';
      serveVersioned(ctx, 'application/json', o.docJson, o.docTag);
      return;
    }
    if (serveDocs(ctx)) {
      state.route = '/docs';
      return;
    }
    if (ctx.path.startsWith(PROBLEM_PAGE_PREFIX)) {
      // Labelled before serving: an unknown code is a 404 problem under the same route.
      state.route = PROBLEM_PAGE_ROUTE;
      serveProblemPage(ctx);
      return;
    }
    await next();
  };
}
