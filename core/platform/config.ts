// The one place the environment is read: every process (server, worker, CLI) loads this once
// at start and hands it down; nothing else reads process.env. See README.md#configuration for
// the meaning of each variable. A value that is not a number, or is out of its range, stops the
// process with a message naming the variable, rather than being bent into range.

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
  /**
   * RENDER_CHECKS, RENDER_RUNS, RENDER_TIMEOUT_MS: whether a check also renders its pages in
   * headless Chromium (off by default; auto: when the browser is installed), how many Lighthouse runs per page
   * (medians are kept), and how long one run may take.
   */
  render: { mode: 'auto' | 'on' | 'off'; runs: number; timeoutMs: number };
  /** Requests one API key may make per minute, counted across every API process; 0: no limit. */
  rateLimitPerMinute: number;
  /**
   * METRICS_TOKEN: when set, `GET /metrics` (API server and worker) needs
   * `Authorization: Bearer <token>`; when null, only loopback clients may read it.
   */
  metricsToken: string | null;
  /** METRICS_HOST: where the worker's metrics listener binds (the API serves /metrics on its own port). */
  metricsHost: string;
  /**
   * SECRETS_KEY: the keys that seal stored tokens (core/secrets), the first one sealing, every one
   * opening; empty when unset (then no repository can be connected).
   */
  secretsKeys: Buffer[];
  /**
   * PUBLIC_URL: where users and repository hosts reach this API (webhook URLs of connections,
   * links in commit statuses); default `http://HOST:PORT`.
   */
  publicUrl: string;
  /**
   * Outgoing mail (core/mail): SMTP_URL (`smtp://` or `smtps://`; null: messages are written as
   * files under MAIL_DIR, default ./data/mail), MAIL_FROM (the sender).
   */
  mail: { smtpUrl: string | null; from: string; dir: string };
  /**
   * Search Console (core/search-console): the OAuth client (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET;
   * without them no workspace can connect), where Google's authorization, token and Search
   * Console endpoints are (GOOGLE_OAUTH_AUTH_URL, GOOGLE_OAUTH_TOKEN_URL, SEARCH_CONSOLE_API_URL:
   * Google's own unless set, e.g. for a test stand-in), and how many days a first sync reads
   * (SEARCH_SYNC_BACKFILL_DAYS).
   */
  google: { clientId: string | null; clientSecret: string | null; authUrl: string; tokenUrl: string; apiRootUrl: string; backfillDays: number };
  /** Worker processes: the job queue's own settings (docs/operating.md#processes-and-scaling). */
  worker: {
    /** JOB_LEASE_MS: a claimed job belongs to its worker this long. */
    leaseMs: number;
    /** JOB_HEARTBEAT_MS: how often a worker renews its leases (default a third of the lease). */
    heartbeatMs: number;
    /** JOB_SHUTDOWN_MS: on SIGTERM, how long running jobs may finish. */
    shutdownMs: number;
    /** JOB_MAINTENANCE_PERIOD_MS: retention and cleanup run once per period across workers. */
    maintenancePeriodMs: number;
    /** JOB_ASYNC_COMMIT: PostgreSQL queue bookkeeping without waiting for the WAL flush. */
    asyncCommit: boolean;
    /** WORKER_METRICS_PORT: the metrics listener's port; null: no listener (the default). */
    metricsPort: number | null;
  };
  /** HTTP server limits (see server/server.ts). */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
  };
}

/** A numeric setting: its default when unset, else a number from `min` (and up to `max`). */
function num(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new Error(`${name} must be a number${max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : ` of at least ${min}`}, got "${raw}"`);
  }
  return n;
}

function port(env: NodeJS.ProcessEnv, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number from 1 to 65535, got "${raw}"`);
  return n;
}

const flag = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw === '1' || raw === 'true';
};

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
    port: num(env, 'PORT', 3000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/sitehealth.db',
    siteCheckDelaySeconds: num(env, 'SITE_CHECK_DELAY_SECONDS', 120),
    crawlDelaySeconds: num(env, 'CRAWL_DELAY_SECONDS', 300),
    workerConcurrency: num(env, 'WORKER_CONCURRENCY', 4, 1),
    workerPollMs: num(env, 'WORKER_POLL_MS', 1000, 10),
    webhookTimeoutMs: num(env, 'WEBHOOK_TIMEOUT_MS', 10000),
    webhookRetryScheduleSeconds: schedule,
    webhookPauseAfterFailures: num(env, 'WEBHOOK_PAUSE_AFTER_FAILURES', 5),
    webhookPauseAfterHours: num(env, 'WEBHOOK_PAUSE_AFTER_HOURS', 24),
    allowPrivateNetwork: flag(env, 'ALLOW_PRIVATE_NETWORK', false),
    logLevel: env.LOG_LEVEL || 'info',
    dbBusyWaitMs: num(env, 'DB_BUSY_WAIT_MS', 5000),
    crawlMaxPages: num(env, 'CRAWL_MAX_PAGES', 500, 1),
    crawlConcurrency: num(env, 'CRAWL_CONCURRENCY', 4, 1),
    crawlDelayMs: num(env, 'CRAWL_DELAY_MS', 10),
    fetchTimeoutMs: num(env, 'FETCH_TIMEOUT_MS', 15_000, 100),
    render: {
      mode: renderMode(env),
      runs: Math.floor(num(env, 'RENDER_RUNS', 3, 1, 9)),
      timeoutMs: num(env, 'RENDER_TIMEOUT_MS', 30_000, 1000),
    },
    rateLimitPerMinute: Math.floor(num(env, 'RATE_LIMIT_PER_MINUTE', 6000)),
    metricsToken: token(env, 'METRICS_TOKEN'),
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    secretsKeys: secretsKeys(env.SECRETS_KEY),
    publicUrl: publicUrl(env),
    mail: mailSettings(env),
    google: {
      clientId: env.GOOGLE_CLIENT_ID || null,
      clientSecret: env.GOOGLE_CLIENT_SECRET || null,
      authUrl: httpUrl(env, 'GOOGLE_OAUTH_AUTH_URL', 'https://accounts.google.com/o/oauth2/v2/auth'),
      tokenUrl: httpUrl(env, 'GOOGLE_OAUTH_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
      apiRootUrl: `${httpUrl(env, 'SEARCH_CONSOLE_API_URL', 'https://searchconsole.googleapis.com').replace(/\/+$/, '')}/`,
      backfillDays: num(env, 'SEARCH_SYNC_BACKFILL_DAYS', 90, 3, 487),
    },
    worker: workerSettings(env),
    http: {
      headersTimeoutMs: num(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100),
      requestTimeoutMs: num(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100),
      keepAliveTimeoutMs: num(env, 'HTTP_KEEPALIVE_TIMEOUT_MS', 5_000, 100),
      maxConnections: num(env, 'HTTP_MAX_CONNECTIONS', 1024, 1),
    },
  };
}

function renderMode(env: NodeJS.ProcessEnv): Config['render']['mode'] {
  const raw = env.RENDER_CHECKS;
  // Off unless asked for: a render takes tens of seconds a page (docs/operating.md#measured-figures),
  // and a check waiting its turn for the worker's browser holds a job slot that deliveries need.
  if (raw === undefined || raw === '') return 'off';
  if (raw === 'auto' || raw === 'on' || raw === 'off') return raw;
  throw new Error(`RENDER_CHECKS must be auto, on or off, got "${raw}"`);
}

/**
 * SECRETS_KEY: one or more base64 encodings of 32 random bytes, comma-separated; the first seals
 * and all open (a rotation lists the new key first, docs/operating.md#rotating-secrets_key).
 */
function secretsKeys(raw: string | undefined): Buffer[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((part, i) => {
    const text = part.trim();
    const bytes = Buffer.from(text, /[-_]/.test(text) ? 'base64url' : 'base64');
    if (bytes.length !== 32 || !/^[A-Za-z0-9+/_=-]+$/.test(text)) {
      throw new Error(`SECRETS_KEY entry ${i + 1} must be the base64 of 32 random bytes (openssl rand -base64 32)`);
    }
    return bytes;
  });
}

function publicUrl(env: NodeJS.ProcessEnv): string {
  const raw = env.PUBLIC_URL;
  if (raw === undefined || raw === '') return `http://${env.HOST || '127.0.0.1'}:${env.PORT || 3000}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`PUBLIC_URL must be an http or https URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`PUBLIC_URL must be an http or https URL, got "${raw}"`);
  return url.href.replace(/\/+$/, '');
}

function httpUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let url: URL | null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new Error(`${name} must be an http or https URL, got "${raw}"`);
  return raw;
}

function mailSettings(env: NodeJS.ProcessEnv): Config['mail'] {
  const raw = env.SMTP_URL;
  let smtpUrl: string | null = null;
  if (raw !== undefined && raw !== '') {
    let url: URL | null;
    try {
      url = new URL(raw);
    } catch {
      url = null;
    }
    // The message names the variable, never its value: it may carry a password.
    if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) throw new Error('SMTP_URL must be an smtp:// or smtps:// URL, such as smtp://user:password@mail.example.com:587');
    smtpUrl = raw;
  }
  const from = env.MAIL_FROM || 'sitehealth <no-reply@sitehealth.localhost>';
  if (/[\r\n]/.test(from)) throw new Error('MAIL_FROM must be one line');
  return { smtpUrl, from, dir: env.MAIL_DIR || './data/mail' };
}

function workerSettings(env: NodeJS.ProcessEnv): Config['worker'] {
  const leaseMs = num(env, 'JOB_LEASE_MS', 60_000, 100);
  const heartbeatMs = num(env, 'JOB_HEARTBEAT_MS', Math.floor(leaseMs / 3), 10);
  if (heartbeatMs >= leaseMs) throw new Error('JOB_HEARTBEAT_MS must be shorter than JOB_LEASE_MS');
  return {
    leaseMs,
    heartbeatMs,
    shutdownMs: num(env, 'JOB_SHUTDOWN_MS', 25_000),
    maintenancePeriodMs: num(env, 'JOB_MAINTENANCE_PERIOD_MS', 3_600_000, 1000),
    asyncCommit: env.JOB_ASYNC_COMMIT !== '0' && env.JOB_ASYNC_COMMIT !== 'false',
    metricsPort: port(env, 'WORKER_METRICS_PORT'),
  };
}
