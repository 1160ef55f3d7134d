// Search Console through the API, the worker and a local stand-in for Google (test/support/
// google-stub.ts, the real OAuth token and Search Analytics shapes): connect (the authorization
// URL, the callback exchanging the code, the refresh token sealed at rest), the sync through the
// jobs table (by date and page, and by date, page, query, country and device; the last 3 days
// re-read and provisional), the data read back through GET /v1/search-performance, the daily slot
// claimed once across workers, and what goes wrong: consent declined, a code Google will not
// exchange, a state reused, Search Console refusing (403), consent revoked; each shown on the
// connection and in the activity feed, with nothing else changed.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../core/platform/index.ts';
import { addDays, dayOf, searchSpan } from '../core/search-data/index.ts';
import { runSchedules, latestSlot } from '../core/monitoring/index.ts';
import { runSync, searchConsoleSettings, startAuthorization } from '../core/search-console/index.ts';
import { SYSTEM_ACTOR } from '../core/activity/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner } from './support/jobs.ts';
import { GoogleStub, type StubRow } from './support/google-stub.ts';

after(dropCreatedDatabases);

const SECRETS_KEY = crypto.randomBytes(32).toString('base64');
const PUBLIC_URL = 'https://sitehealth.example.com';
const SITE = 'https://www.example.com/';
const today = dayOf(Date.now());
const ago = (n: number) => addDays(today, -n);

/** Rows of one day as the stub serves them: two pages, queries in two countries and devices. */
function dayRows(date: string, scale = 1): StubRow[] {
  return [
    { date, page: `${SITE}a`, query: 'alpha', country: 'usa', device: 'MOBILE', clicks: 10 * scale, impressions: 100, position: 2 },
    { date, page: `${SITE}a`, query: 'alpha', country: 'deu', device: 'DESKTOP', clicks: 4 * scale, impressions: 40, position: 4 },
    { date, page: `${SITE}b`, query: 'beta', country: 'usa', device: 'DESKTOP', clicks: 3 * scale, impressions: 60, position: 6 },
    { date, page: `${SITE}b#reviews`, query: 'beta', country: 'usa', device: 'DESKTOP', clicks: 1, impressions: 10, position: 8 },
  ];
}

for (const engine of engines()) {
  describe(`Search Console (${engine})`, () => {
    let api: TestApi;
    let google: GoogleStub;
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    let env: Record<string, string>;
    let refreshToken = '';
    const config = () => loadConfig({ ...process.env, ...env });
    const runDue = () => testRunner(api.db, { config: config() }).runDue();
    const base = () => `/v1/workspaces/${owner.workspaceId}/search-console`;
    const connection = async () => (await api.call('GET', base(), { key: owner.apiKey })).body;
    const activity = async () =>
      ((await api.call('GET', '/v1/activity', { key: owner.apiKey, query: { workspace_id: owner.workspaceId, limit: 100 } })).body.data as Array<{ action: string; details: Record<string, unknown> }>)
        .filter((a) => a.action.startsWith('search_console.'))
        .map((a) => a.action)
        .reverse();
    const connect = async () => {
      const res = await api.call('POST', base(), { key: owner.apiKey, body: { siteUrl: SITE } });
      assert.equal(res.status, 201, res.text);
      return new URL(res.body.authorizationUrl).searchParams.get('state')!;
    };
    const callback = (query: Record<string, string>) => api.call('GET', '/v1/search-console/callback', { query });

    before(async () => {
      google = await GoogleStub.start();
      env = { ...google.env(), SECRETS_KEY, PUBLIC_URL, SEARCH_SYNC_BACKFILL_DAYS: '10' };
      api = await TestApi.start(engine, { env });
      owner = await api.owner();
      google.data.set(SITE, Array.from({ length: 12 }, (_, i) => dayRows(ago(12 - i))).flat());
    });
    after(async () => {
      await api.stop();
      await google.close();
    });

    it('connect: an authorization URL at Google for the read-only scope; admins only; nothing until Google calls back', async () => {
      assert.equal((await api.call('GET', base(), { key: owner.apiKey })).status, 404);
      const viewer = await api.user();
      await api.member(owner.workspaceId, viewer.userId, 'member');
      const memberKey = (await api.key(viewer.userId)).apiKey;
      assert.equal((await api.call('POST', base(), { key: memberKey, body: { siteUrl: SITE } })).status, 403);
      const bad = await api.call('POST', base(), { key: owner.apiKey, body: { siteUrl: 'example.com' } });
      assert.equal(bad.status, 400);

      const res = await api.call('POST', base(), { key: owner.apiKey, body: { siteUrl: SITE } });
      assert.equal(res.status, 201, res.text);
      const auth = new URL(res.body.authorizationUrl);
      assert.equal(`${auth.origin}${auth.pathname}`, `${google.url}/o/oauth2/v2/auth`);
      assert.equal(auth.searchParams.get('client_id'), google.clientId);
      assert.equal(auth.searchParams.get('redirect_uri'), `${PUBLIC_URL}/v1/search-console/callback`);
      assert.equal(auth.searchParams.get('scope'), 'https://www.googleapis.com/auth/webmasters.readonly');
      assert.equal(auth.searchParams.get('access_type'), 'offline');
      assert.equal(auth.searchParams.get('response_type'), 'code');
      assert.ok((auth.searchParams.get('state') ?? '').length >= 40);
      assert.equal(res.body.connection.state, 'pending');
      assert.equal((await connection()).state, 'pending');
      // Without the operator's Google client nothing can start (503 search_console_unconfigured).
      const unconfigured = { ...searchConsoleSettings(config()), google: { ...config().google, clientId: null } };
      await assert.rejects(startAuthorization(api.db, owner.workspaceId, { siteUrl: SITE }, unconfigured, SYSTEM_ACTOR), { code: 'search_console_unconfigured', status: 503 });
    });

    it('callback: declined consent and a code Google will not exchange are recorded; an unknown or used state is 404', async () => {
      const declined = await callback({ state: await connect(), error: 'access_denied' });
      assert.equal(declined.status, 200, declined.text);
      assert.deepEqual(declined.body, { workspaceId: owner.workspaceId, outcome: 'refused' });
      assert.match((await connection()).lastError, /access_denied/);

      const state = await connect();
      const refused = await callback({ state, code: '4/0not-a-code' });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.body.code, 'search_console_refused');
      assert.match(refused.body.detail, /invalid_grant|400/);
      // The state was single-use.
      assert.equal((await callback({ state, code: google.issueCode().code })).status, 404);
      assert.equal((await callback({ state: 'never-issued', code: 'x' })).status, 404);
      const c = await connection();
      assert.equal(c.state, 'pending');
      assert.match(c.lastError, /exchange/);
      assert.deepEqual(await activity(), [
        'search_console.authorization_started',
        'search_console.authorization_started',
        'search_console.consent_refused',
        'search_console.authorization_started',
        'search_console.consent_refused',
      ]);
    });

    it('connected: the refresh token is sealed at rest; the first sync runs through the jobs table and reads the back-fill', async () => {
      const state = await connect();
      const grant = google.issueCode();
      refreshToken = grant.refreshToken;
      const res = await callback({ state, code: grant.code, scope: 'https://www.googleapis.com/auth/webmasters.readonly', authuser: '0', prompt: 'consent' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { workspaceId: owner.workspaceId, outcome: 'connected' });
      const stored = (await api.db('search_console_connections').where({ workspace_id: owner.workspaceId }).first()) as { refresh_token: string };
      assert.ok(stored.refresh_token.startsWith('v1.'), 'sealed');
      assert.ok(!stored.refresh_token.includes(grant.refreshToken) && !JSON.stringify(await connection()).includes(grant.refreshToken), 'never stored or shown in plaintext');
      assert.ok(google.tokenRequests.some((t) => t.grant_type === 'authorization_code' && t.redirect_uri === `${PUBLIC_URL}/v1/search-console/callback`));

      const jobs = await runDue();
      assert.ok(jobs >= 1);
      const c = await connection();
      assert.equal(c.state, 'connected', c.lastError);
      assert.equal(c.syncedThrough, ago(1));
      assert.equal(c.lastError, null);
      // 10 days (back-fill) x (2 page rows + 3 detail rows: the fragment URL merges into /b).
      assert.equal(c.lastSyncRows, 10 * 5);
      const dates = new Set(google.queries.map((q) => q.body.startDate));
      assert.deepEqual([...dates].sort(), Array.from({ length: 10 }, (_, i) => ago(10 - i)));
      assert.ok(google.queries.every((q) => q.siteUrl === SITE && q.body.dataState === 'all' && q.body.rowLimit === 25000));
      assert.ok(google.queries.some((q) => q.body.dimensions.join() === 'date,page,query,country,device'));
      assert.ok(google.queries.some((q) => q.body.dimensions.join() === 'date,page'));
    });

    it('the synced data reads back through GET /v1/search-performance; the last 3 days are provisional', async () => {
      const perf = async (q: Record<string, string>) => {
        const res = await api.call('GET', '/v1/search-performance', { key: owner.apiKey, query: { workspace_id: owner.workspaceId, ...q } });
        assert.equal(res.status, 200, res.text);
        return res.body;
      };
      const byQuery = await perf({ from: ago(10), to: ago(1), dimension: 'query' });
      assert.deepEqual(byQuery.data.map((r: { key: string; clicks: number }) => [r.key, r.clicks]), [['alpha', 140], ['beta', 40]]);
      const byDevice = await perf({ from: ago(1), to: ago(1), dimension: 'device' });
      assert.deepEqual(byDevice.data.map((r: { key: string; clicks: number }) => [r.key, r.clicks]), [['mobile', 10], ['desktop', 8]]);
      const byPage = await perf({ from: ago(1), to: ago(1), dimension: 'page' });
      assert.deepEqual(byPage.data.map((r: { key: string; clicks: number }) => [r.key, r.clicks]), [[`${SITE}a`, 14], [`${SITE}b`, 4]]);
      assert.equal(byPage.provisionalFrom, ago(1));
      assert.equal((await perf({ from: ago(10), to: ago(1) })).provisionalFrom, ago(3));
      const days = (await api.db('search_data_days').where({ workspace_id: owner.workspaceId }).orderBy('date')) as Array<{ date: string; provisional: boolean | number }>;
      assert.deepEqual(days.filter((d) => Boolean(d.provisional)).map((d) => String(d.date)), [ago(3), ago(2), ago(1)]);
      // Deploy impact's windows end on the last final day (spec/deploys.tsp Impact): before the provisional ones.
      assert.deepEqual(await searchSpan(api.db, owner.workspaceId), { first: ago(10), newest: ago(1), lastFinal: ago(4) });
    });

    it('the next sync re-reads the last 3 days (revised figures replace them) and marks incomplete days provisional', async () => {
      google.queries.length = 0;
      google.data.set(SITE, [...google.data.get(SITE)!.filter((r) => r.date !== ago(2)), ...dayRows(ago(2), 3)]);
      google.firstIncompleteDate = ago(4);
      const r = await runSync(api.db, (await connection()).id, { ...searchConsoleSettings(config()), backfillDays: 10 });
      assert.equal(r.outcome, 'synced');
      assert.deepEqual([r.from, r.to], [ago(3), ago(1)]);
      assert.deepEqual([...new Set(google.queries.map((q) => q.body.startDate))].sort(), [ago(3), ago(2), ago(1)]);
      const res = await api.call('GET', '/v1/search-performance', { key: owner.apiKey, query: { workspace_id: owner.workspaceId, from: ago(2), to: ago(2) } });
      assert.equal(res.body.totals.clicks, 30 + 12 + 9 + 1);
      // Days from Google's firstIncompleteDate on are provisional too (only those the sync read).
      assert.equal(res.body.provisionalFrom, ago(2));
      google.firstIncompleteDate = null;
      assert.ok(r.rows! > 0 && r.ms! >= 0);
    });

    it('a scheduled sync is claimed once per daily slot across workers, and queued through the jobs table', async () => {
      const slot = latestSlot('daily', '05:00', 'UTC', Date.now() + 86_400_000);
      const runs = (await Promise.all([runSchedules(api.db, slot + 1000), runSchedules(api.db, slot + 1000)])).flat().filter((r) => r.kind === 'search' && r.workspaceId === owner.workspaceId);
      assert.equal(runs.length, 1);
      assert.equal((await runSchedules(api.db, slot + 3_600_000)).filter((r) => r.kind === 'search').length, 0, 'the same slot is not run twice');
      const job = (await api.db('jobs').where({ id: runs[0].runId }).first()) as { kind: string; payload: string };
      assert.equal(job.kind, 'search_sync');
      await api.db('jobs').where({ id: runs[0].runId }).del();
    });

    it('Search Console refusing (403) makes the connection failing, once in the activity feed; a transient error is retried', async () => {
      const id = (await connection()).id;
      const settings = { ...searchConsoleSettings(config()), backfillDays: 10 };
      google.failNext = { status: 503, times: 1, message: 'The service is currently unavailable.' };
      await assert.rejects(runSync(api.db, id, settings), { name: 'TransientSyncError' });
      assert.equal((await connection()).state, 'connected', 'a transient failure before the last attempt changes nothing');

      google.failNext = { status: 403, times: 2, message: "User does not have sufficient permission for site 'https://www.example.com/'." };
      assert.equal((await runSync(api.db, id, settings)).outcome, 'failed');
      assert.equal((await runSync(api.db, id, settings)).outcome, 'failed');
      const c = await connection();
      assert.equal(c.state, 'failing');
      assert.match(c.lastError, /403: User does not have sufficient permission/);
      assert.equal((await activity()).filter((a) => a === 'search_console.sync_failed').length, 1);
      // The next good sync clears it.
      assert.equal((await runSync(api.db, id, settings)).outcome, 'synced');
      assert.deepEqual([(await connection()).state, (await connection()).lastError], ['connected', null]);
    });

    it('revoked consent: the connection shows it, the feed records it, syncs stop (409) until access is granted again', async () => {
      google.revoked.add(refreshToken);
      const before = await api.db('search_performance').where({ workspace_id: owner.workspaceId }).count({ n: '*' });
      const r = await runSync(api.db, (await connection()).id, { ...searchConsoleSettings(config()), backfillDays: 10 });
      assert.equal(r.outcome, 'revoked');
      const c = await connection();
      assert.equal(c.state, 'revoked');
      assert.match(c.lastError, /invalid_grant/);
      assert.equal((await activity()).at(-1), 'search_console.revoked');
      assert.deepEqual(await api.db('search_performance').where({ workspace_id: owner.workspaceId }).count({ n: '*' }), before, 'nothing changed');
      const sync = await api.call('POST', `${base()}/sync`, { key: owner.apiKey });
      assert.equal(sync.status, 409, sync.text);
      assert.equal(sync.body.code, 'search_console_not_connected');
      assert.equal((await runSchedules(api.db, Date.now() + 2 * 86_400_000)).filter((x) => x.kind === 'search').length, 0);

      // Granting access again brings it back.
      const grant = google.issueCode();
      refreshToken = grant.refreshToken;
      assert.equal((await callback({ state: await connect(), code: grant.code })).body.outcome, 'connected');
      const again = await api.call('POST', `${base()}/sync`, { key: owner.apiKey });
      assert.equal(again.status, 202, again.text);
      await runDue();
      assert.equal((await connection()).state, 'connected');
    });

    it('disconnect: the token is gone, the data stays, a security row is written', async () => {
      const viewer = await api.user();
      await api.member(owner.workspaceId, viewer.userId, 'member');
      assert.equal((await api.call('DELETE', base(), { key: (await api.key(viewer.userId)).apiKey })).status, 403);
      assert.equal((await api.call('DELETE', base(), { key: owner.apiKey })).status, 204);
      assert.equal((await api.call('GET', base(), { key: owner.apiKey })).status, 404);
      assert.equal(await api.db('search_console_connections').where({ workspace_id: owner.workspaceId }).first(), undefined);
      assert.ok(Number((await api.db('search_performance').where({ workspace_id: owner.workspaceId }).count({ n: '*' }))[0].n) > 0);
      assert.equal((await activity()).at(-1), 'search_console.disconnected');
      // Another account's key sees nothing of it.
      const other = await api.owner();
      assert.equal((await api.call('GET', base(), { key: other.apiKey })).status, 404);
    });
  });
}
