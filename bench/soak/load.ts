// The soak's clients: N concurrent loops over plain fetch (no retries, so every status is seen),
// each paced to its share of the target rate, spread over the API processes. They record deploys
// (mostly production, some repeated shas so updates happen, some other environments), read
// lists and details, and keep a ledger of every acknowledged deploy. Every response is counted by
// process and status, checked against the generated OpenAPI document, and kept as a sample
// (time, process, operation, status, latency) for the report's windows.
import crypto from 'node:crypto';
import { responseViolations } from '../../test/support/contract.ts';

/** The fields of an answer this load reads: a problem's code, a created deploy's id, a page of ids. */
type AnswerBody = { code?: string; id?: string; data?: Array<{ id: string }> };

export interface LoadOptions {
  /** Base URLs of the API processes. */
  apis: string[];
  key: string;
  workspaceId: string;
  webhookId: string;
  seconds: number;
  clients: number;
  /** Requests per second, all clients together (each paces to its share). */
  rate: number;
  /** New production deploys per second at most, all clients together (each one is a check and a crawl). */
  productionPerSecond: number;
  /** Per request; a request still unanswered then counts as `timeout`. */
  timeoutMs: number;
}

export type Outcome = number | 'timeout' | 'network';

export interface Sample {
  /** ms since the load started */
  t: number;
  api: number;
  op: string;
  outcome: Outcome;
  ms: number;
}

export interface Acknowledged {
  id: string;
  environment: string;
  sha: string;
  /** 2xx answers for this (environment, sha). */
  acks: number;
  /** Ids other than `id` that an acknowledgement returned for the same (environment, sha). */
  otherIds: string[];
  /** Requests that moved its deployedAt, answered or not (each may reschedule a check and a crawl). */
  moves: number;
}

export interface BadUnavailable {
  api: number;
  op: string;
  why: string;
}

export interface LoadResult {
  startedAt: number;
  endedAt: number;
  samples: Sample[];
  ledger: Map<string, Acknowledged>;
  /** Responses that broke the contract (first 50). */
  violations: string[];
  violationCount: number;
  /** 503s that were not a service_unavailable problem document with Retry-After. */
  badUnavailable: BadUnavailable[];
  /** First bodies of unexpected statuses (4xx, 5xx other than 503), for the report. */
  unexpected: string[];
  /** Network errors by message (first few). */
  networkErrors: string[];
}

const ENVIRONMENTS = ['staging', 'preview', 'qa'];
const CATEGORIES = ['page', 'template', 'component', 'style', 'content', 'config', 'routing', 'script'];
const SIGNALS = ['title', 'meta_description', 'canonical', 'heading', 'link', 'structured_data', 'script', 'image'];

function sha(): string {
  return crypto.randomBytes(20).toString('hex');
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)];
}

function changes(): unknown[] {
  const n = 1 + Math.floor(Math.random() * 4);
  return Array.from({ length: n }, (_, i) => ({
    path: `src/pages/p/${Math.floor(Math.random() * 30)}/section-${i}.tsx`,
    category: pick(CATEGORIES),
    signals: Math.random() < 0.6 ? [{ kind: pick(SIGNALS), change: Math.random() < 0.5 ? 'added' : 'removed', line: 1 + Math.floor(Math.random() * 200) }] : [],
  }));
}

/** A token bucket: new production deploys are rationed so the workers keep up with the checks and crawls. */
class Bucket {
  private tokens = 1;
  private last = performance.now();
  constructor(private readonly perSecond: number) {}
  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(2, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export async function runLoad(o: LoadOptions, stop: AbortSignal): Promise<LoadResult> {
  const started = performance.now();
  const startedAt = Date.now();
  const samples: Sample[] = [];
  const ledger = new Map<string, Acknowledged>();
  const acked: Acknowledged[] = [];
  const deliveryIds: string[] = [];
  const violations: string[] = [];
  let violationCount = 0;
  const badUnavailable: BadUnavailable[] = [];
  const unexpected: string[] = [];
  const networkErrors: string[] = [];
  const production = new Bucket(o.productionPerSecond);
  const until = started + o.seconds * 1000;

  async function call(api: number, op: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: AnswerBody | undefined } | null> {
    const url = o.apis[api] + path;
    const t0 = performance.now();
    let outcome: Outcome;
    let json: unknown;
    try {
      const res = await fetch(url, {
        method,
        headers: { 'x-api-key': o.key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      const text = await res.text();
      outcome = res.status;
      const type = res.headers.get('content-type') ?? '';
      try {
        json = text && type.includes('json') ? JSON.parse(text) : text || undefined;
      } catch {
        json = text;
      }
      const pathname = new URL(url).pathname;
      const v = responseViolations(method, pathname, res.status, type, json);
      if (v.length) {
        violationCount++;
        if (violations.length < 50) violations.push(`${method} ${pathname} -> ${res.status}: ${v.join('; ')}`);
      }
      if (res.status === 503) {
        const why: string[] = [];
        if (!type.startsWith('application/problem+json')) why.push(`content-type ${type}`);
        const code = (json as AnswerBody | undefined)?.code;
        if (code !== 'service_unavailable') why.push(`code ${code}`);
        if (!/^\d+$/.test(res.headers.get('retry-after') ?? '')) why.push(`Retry-After "${res.headers.get('retry-after')}"`);
        if (why.length) badUnavailable.push({ api, op, why: why.join(', ') });
      } else if (res.status >= 400 && unexpected.length < 30) {
        unexpected.push(`api${api + 1} ${method} ${pathname} -> ${res.status} ${text.slice(0, 300)}`);
      }
      samples.push({ t: t0 - started, api, op, outcome, ms: performance.now() - t0 });
      return { status: res.status, json: typeof json === 'object' && json !== null ? (json as AnswerBody) : undefined };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      outcome = e.name === 'TimeoutError' ? 'timeout' : 'network';
      if (outcome === 'network' && networkErrors.length < 10) networkErrors.push(`api${api + 1} ${method} ${path}: ${e.message} ${e.cause?.code ?? e.cause?.message ?? ''}`);
      samples.push({ t: t0 - started, api, op, outcome, ms: performance.now() - t0 });
      return null;
    }
  }

  /** Requests that moved a deploy's time, by (environment, sha), answered or not. */
  const moves = new Map<string, number>();

  function acknowledge(environment: string, commitSha: string, id: string): void {
    const key = `${environment}:${commitSha.toLowerCase()}`;
    const prev = ledger.get(key);
    if (!prev) {
      const entry: Acknowledged = { id, environment, sha: commitSha.toLowerCase(), acks: 1, otherIds: [], moves: 0 };
      ledger.set(key, entry);
      acked.push(entry);
    } else {
      prev.acks++;
      if (id !== prev.id && !prev.otherIds.includes(id)) prev.otherIds.push(id);
    }
  }

  async function recordDeploy(api: number): Promise<void> {
    let environment = 'production';
    let commitSha: string;
    const extra: Record<string, unknown> = {};
    const r = Math.random();
    let op: string;
    if (r < 0.15) {
      environment = pick(ENVIRONMENTS);
      commitSha = sha();
      op = 'deploy.other-env';
    } else if (r < 0.55 && production.take()) {
      commitSha = sha();
      op = 'deploy.production';
    } else if (acked.length) {
      // The same (environment, sha) again: an update (CI retrying, or re-running a pipeline),
      // half the time one of the newest, so that updates of one deploy meet.
      const prev = Math.random() < 0.5 ? pick(acked.slice(-10)) : pick(acked);
      environment = prev.environment;
      commitSha = Math.random() < 0.3 ? prev.sha.toUpperCase() : prev.sha;
      // Sometimes the deploy time moves too: a production check and crawl are rescheduled.
      if (Math.random() < 0.15) extra.deployedAt = new Date().toISOString();
      op = 'deploy.update';
    } else {
      environment = pick(ENVIRONMENTS);
      commitSha = sha();
      op = 'deploy.other-env';
    }
    const body = {
      workspaceId: o.workspaceId,
      commitSha,
      environment,
      ref: 'main',
      message: `soak ${op} ${new Date().toISOString()}`,
      changes: changes(),
      ...extra,
    };
    const key = `${environment}:${commitSha.toLowerCase()}`;
    // Now and then a new deploy is sent to both APIs at once (a CI job retried while its first
    // request is still running): one deploy, one check, one crawl, one event either way.
    const both = op !== 'deploy.update' && Math.random() < 0.08;
    const targets = both ? o.apis.map((_, i) => i) : [api];
    if (extra.deployedAt) moves.set(key, (moves.get(key) ?? 0) + targets.length);
    const answers = await Promise.all(targets.map((t) => call(t, both ? `${op}.twice` : op, 'POST', '/v1/deploys', body)));
    for (const res of answers) {
      if (res && res.status >= 200 && res.status < 300) acknowledge(environment, commitSha, res.json?.id ?? '');
    }
  }

  async function oneRequest(api: number): Promise<void> {
    const r = Math.random();
    const ws = o.workspaceId;
    if (r < 0.22) return recordDeploy(api);
    if (r < 0.42) {
      await call(api, 'deploys.list', 'GET', `/v1/deploys?workspace_id=${ws}&limit=${pick([10, 20, 50])}`);
      return;
    }
    if (r < 0.67) {
      if (!acked.length) return recordDeploy(api);
      await call(api, 'deploys.get', 'GET', `/v1/deploys/${pick(acked).id}`);
      return;
    }
    if (r < 0.77) {
      await call(api, 'site-checks.latest', 'GET', `/v1/site-checks/latest?workspace_id=${ws}`);
      return;
    }
    if (r < 0.89) {
      const res = await call(api, 'deliveries.list', 'GET', `/v1/webhooks/${o.webhookId}/deliveries?limit=20`);
      for (const d of (res?.status === 200 ? res.json?.data : undefined) ?? []) {
        if (deliveryIds.length < 2000 && !deliveryIds.includes(d.id)) deliveryIds.push(d.id);
      }
      return;
    }
    if (r < 0.96) {
      if (!deliveryIds.length) return;
      await call(api, 'deliveries.get', 'GET', `/v1/webhooks/${o.webhookId}/deliveries/${pick(deliveryIds)}`);
      return;
    }
    if (r < 0.99) {
      await call(api, 'workspaces.get', 'GET', `/v1/workspaces/${ws}`);
      return;
    }
    await call(api, 'webhooks.get', 'GET', `/v1/webhooks/${o.webhookId}`);
  }

  const interval = (1000 * o.clients) / o.rate;
  const client = async (i: number): Promise<void> => {
    // Staggered start, then each request on its own slot (a slow answer is not made up for).
    await new Promise((r) => setTimeout(r, (interval * i) / o.clients));
    let n = 0;
    while (!stop.aborted && performance.now() < until) {
      const slot = performance.now();
      await oneRequest((i + n++) % o.apis.length);
      const wait = interval * (0.5 + Math.random()) - (performance.now() - slot);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  };
  await Promise.all(Array.from({ length: o.clients }, (_, i) => client(i)));
  for (const [key, n] of moves) {
    const a = ledger.get(key);
    if (a) a.moves = n;
  }
  return { startedAt, endedAt: Date.now(), samples, ledger, violations, violationCount, badUnavailable, unexpected, networkErrors };
}
