// Reads the environment once; every process (server, worker, CLI) shares these names.
// See README.md#configuration for the meaning of each variable.

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  siteCheckDelaySeconds: number;
  crawlDelaySeconds: number;
  workerConcurrency: number;
  workerPollMs: number;
  webhookTimeoutMs: number;
  webhookRetryScheduleSeconds: number[];
  webhookPauseAfterFailures: number;
  webhookPauseAfterHours: number;
  allowPrivateNetwork: boolean;
  logLevel: string;
  /**
   * How long a write waits for the database (SQLite's write lock, a pooled connection) before
   * the request is answered 503 `service_unavailable` instead of hanging.
   */
  dbBusyWaitMs: number;
  /** Pages a crawl fetches at most. */
  crawlMaxPages: number;
  /** Requests a crawl or check sends to one website at once. */
  crawlConcurrency: number;
  /** Pause between one lane's requests to a website during a crawl (politeness), ms. */
  crawlDelayMs: number;
  /** One request of a check or crawl, everything included (lookups, redirects, body), ms. */
  fetchTimeoutMs: number;
  /** Requests one API key may make per minute, counted across every API process; 0: no limit. */
  rateLimitPerMinute: number;
  /**
   * METRICS_TOKEN: when set, `GET /metrics` (API server and worker) needs
   * `Authorization: Bearer <token>`; when null, only loopback clients may read it.
   */
  metricsToken: string | null;
  /** METRICS_HOST: where the worker's metrics listener binds (the API serves /metrics on its own port). */
  metricsHost: string;
  /** HTTP server limits (see server/server.ts). */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
  };
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

/** A bearer token as a header can carry it: printable ASCII, no spaces. */
function token(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^[\x21-\x7e]+$/.test(raw)) throw new Error(`${name} must be printable ASCII without spaces`);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const schedule = (env.WEBHOOK_RETRY_SCHEDULE ?? '60,300,1800,7200,21600,43200,86400')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const n = Number(s);
      if (!Number.isFinite(n) || n < 0) throw new Error(`WEBHOOK_RETRY_SCHEDULE has a bad entry "${s}"`);
      return n;
    });
  return {
    port: int(env, 'PORT', 3000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/sitehealth.db',
    siteCheckDelaySeconds: int(env, 'SITE_CHECK_DELAY_SECONDS', 120),
    crawlDelaySeconds: int(env, 'CRAWL_DELAY_SECONDS', 300),
    workerConcurrency: Math.max(1, int(env, 'WORKER_CONCURRENCY', 4)),
    workerPollMs: Math.max(10, int(env, 'WORKER_POLL_MS', 1000)),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10000),
    webhookRetryScheduleSeconds: schedule,
    webhookPauseAfterFailures: int(env, 'WEBHOOK_PAUSE_AFTER_FAILURES', 5),
    webhookPauseAfterHours: int(env, 'WEBHOOK_PAUSE_AFTER_HOURS', 24),
    allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK === '1' || env.ALLOW_PRIVATE_NETWORK === 'true',
    logLevel: env.LOG_LEVEL || 'info',
    dbBusyWaitMs: int(env, 'DB_BUSY_WAIT_MS', 5000),
    crawlMaxPages: Math.max(1, int(env, 'CRAWL_MAX_PAGES', 500)),
    crawlConcurrency: Math.max(1, int(env, 'CRAWL_CONCURRENCY', 4)),
    crawlDelayMs: int(env, 'CRAWL_DELAY_MS', 10),
    fetchTimeoutMs: Math.max(100, int(env, 'FETCH_TIMEOUT_MS', 15_000)),
    rateLimitPerMinute: Math.floor(int(env, 'RATE_LIMIT_PER_MINUTE', 6000)),
    metricsToken: token(env, 'METRICS_TOKEN'),
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    http: {
      headersTimeoutMs: Math.max(100, int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000)),
      requestTimeoutMs: Math.max(100, int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000)),
      keepAliveTimeoutMs: Math.max(100, int(env, 'HTTP_KEEPALIVE_TIMEOUT_MS', 5_000)),
      maxConnections: Math.max(1, int(env, 'HTTP_MAX_CONNECTIONS', 1024)),
    },
  };
}
