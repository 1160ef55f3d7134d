// Digests and reports (spec/digests.tsp): two workers sharing one database through simulated
// weeks around the daylight-saving changes of America/New_York and Europe/Berlin, each member's
// digest received once over real SMTP and parsed; the digest's content, its RFC 8058 one-click
// unsubscribe (single use, tampering refused), the caller's settings, and reports as JSON and HTML.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, redactSecrets, type Config } from '../core/platform/index.ts';
import { createDb, Workspace, type Db } from '../core/db/index.ts';
import { queueDueDigests, STALE_SEND_MS } from '../core/digests/index.ts';
import { importSearchData } from '../core/search-data/index.ts';
import type { Runner } from '../worker/runner.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner, waitFor } from './support/jobs.ts';
import { startSmtp } from './support/smtp.ts';

after(dropCreatedDatabases);

const at = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString();
const HOUR = 3_600_000;
// The server's PUBLIC_URL (its default: the test server's port is not known before it starts);
// the workers below are given the test server's real address.
const serverUrl = 'http://127.0.0.1:3000';
// How the digest of the week before 15 March 2027 names its period, in New York's time.
const LOCAL_WEEK = 'Mon, 8 Mar 2027, 09:00 to Mon, 15 Mar 2027, 09:00';

/** `YYYY-MM-DD` days from `from` through `to`. */
function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = at(`${from}T00:00:00Z`); t <= at(`${to}T00:00:00Z`); t += 24 * HOUR) out.push(iso(t).slice(0, 10));
  return out;
}

/**
 * 09:00 local on `day` as UTC, from the zones' published rules for 2027 (not from the code under
 * test): New York EDT (UTC-4) from 14 March to 7 November, else EST (UTC-5); Berlin CEST (UTC+2)
 * from 28 March to 31 October, else CET (UTC+1). Both change at night, before 09:00.
 */
function nineAm(zone: 'ny' | 'berlin', day: string): string {
  const summer = zone === 'ny' ? day >= '2027-03-14' && day < '2027-11-07' : day >= '2027-03-28' && day < '2027-10-31';
  const hour = zone === 'ny' ? (summer ? 13 : 14) : summer ? 7 : 8;
  return `${day}T${String(hour).padStart(2, '0')}:00:00.000Z`;
}

// The simulated windows: a week with New York's spring change, then three days around each other
// change day. Between windows the workers are "down": each comes back and sends the newest missed
// digest of each kind once (the first day of each later window, and a Monday before it).
const WINDOWS: Array<[string, string]> = [
  ['2027-03-08T00:20:00Z', '2027-03-16T00:00:00Z'],
  ['2027-03-27T00:20:00Z', '2027-03-30T00:00:00Z'],
  ['2027-10-30T00:20:00Z', '2027-11-02T00:00:00Z'],
  ['2027-11-06T00:20:00Z', '2027-11-09T00:00:00Z'],
];
const DAILY = [...days('2027-03-08', '2027-03-15'), ...days('2027-03-26', '2027-03-29'), ...days('2027-10-29', '2027-11-01'), ...days('2027-11-05', '2027-11-08')];
// Mondays; 1 November is not sent twice although the worker is down after it and comes back later.
const WEEKLY = ['2027-03-08', '2027-03-15', '2027-03-22', '2027-03-29', '2027-10-25', '2027-11-01', '2027-11-08'];

for (const engine of engines()) {
  describe(`digests (${engine})`, () => {
    let api: TestApi;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    /** Addresses the SMTP server refuses for now. */
    const refused = new Set<string>();
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    let pools: Db[];
    let runners: Runner[];
    let config: Config;
    const ws: Record<string, string> = {};
    const users: Record<string, { userId: string; apiKey: string; email: string }> = {};

    const tick = async (t: number) => {
      await Promise.all(pools.map((db) => queueDueDigests(db, t)));
      await Promise.all(runners.map((r) => r.runDue()));
    };

    before(async () => {
      smtp = await startSmtp(undefined, (address) => refused.has(address));
      api = await TestApi.start(engine);
      owner = await api.owner();
      config = loadConfig({ ...process.env, SMTP_URL: smtp.url, PUBLIC_URL: api.url, MAIL_FROM: 'sitehealth <digests@sitehealth.example>' });
      // Two workers: two connection pools on one database, each with its own runner.
      pools = [createDb(api.dbUrl), createDb(api.dbUrl)];
      runners = pools.map((db) => testRunner(db, { config }));
      const make = async (name: string, timezone: string) => {
        const res = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `${name} ${crypto.randomUUID()}`, website: 'https://www.example.com', timezone, check_schedule: 'off', crawl_schedule: 'off' } });
        assert.equal(res.status, 201, res.text);
        ws[name] = res.body.data.id;
      };
      await make('ny', 'America/New_York');
      await make('berlin', 'Europe/Berlin');
      await make('quiet', 'Europe/Berlin');
      const person = async (name: string) => {
        const email = `${name}.${crypto.randomUUID()}@example.com`;
        const u = await api.user({ accountId: owner.accountId, email });
        users[name] = { userId: u.userId, apiKey: (await api.key(u.userId)).apiKey, email };
      };
      await person('daily');
      await person('never');
      await person('viewer');
      await api.member(ws.ny, users.daily.userId, 'member');
      await api.member(ws.berlin, users.daily.userId, 'member');
      await api.member(ws.ny, users.never.userId, 'member');
      await api.member(ws.ny, users.viewer.userId, 'viewer');
      const email = (await api.call('GET', `/v1/workspaces/${ws.ny}/notifications`, { key: owner.apiKey })).body.email;
      users.owner = { userId: owner.userId, apiKey: owner.apiKey, email };
      // The owner's own workspace has no digest; the rest choose.
      assert.equal((await api.call('PUT', `/v1/workspaces/${owner.workspaceId}/notifications`, { key: owner.apiKey, body: { digest: 'none' } })).status, 200);
      for (const w of [ws.ny, ws.berlin]) assert.equal((await api.call('PUT', `/v1/workspaces/${w}/notifications`, { key: users.daily.apiKey, body: { digest: 'daily' } })).status, 200);
      assert.equal((await api.call('PUT', `/v1/workspaces/${ws.ny}/notifications`, { key: users.never.apiKey, body: { digest: 'none' } })).status, 200);
      assert.equal((await api.call('PUT', `/v1/workspaces/${ws.ny}/notifications`, { key: users.viewer.apiKey, body: { digest: 'none' } })).status, 200);
      // Something to say every day: a staging deploy at 12:00 UTC (not checked, so no site is needed).
      for (const day of [...days('2027-03-01', '2027-03-30'), ...days('2027-10-18', '2027-11-16')]) {
        for (const w of [ws.ny, ws.berlin]) {
          const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId: w, commitSha: crypto.createHash('sha1').update(w + day).digest('hex'), environment: 'staging', ref: 'main', deployedAt: `${day}T12:00:00Z` } });
          assert.equal(res.status, 201, res.text);
        }
      }
      // The simulated weeks begin when the workspaces are created.
      await Workspace.query(api.db).whereIn('id', Object.values(ws)).patch({ created_at: at('2027-03-08T00:00:00Z') });
    });
    after(async () => {
      for (const db of pools) await db.destroy();
      await api.stop();
      await smtp.close();
    });

    it('notification settings: the caller\'s own, weekly by default, validated, recorded as activity', async () => {
      const mine = await api.call('GET', `/v1/workspaces/${ws.berlin}/notifications`, { key: owner.apiKey });
      assert.equal(mine.status, 200);
      assert.deepEqual({ ...mine.body, email: undefined }, { workspaceId: ws.berlin, userId: owner.userId, email: undefined, digest: 'weekly', timezone: 'Europe/Berlin', updatedAt: null });
      const theirs = await api.call('GET', `/v1/workspaces/${ws.ny}/notifications`, { key: users.daily.apiKey });
      assert.equal(theirs.body.digest, 'daily');
      assert.equal(theirs.body.userId, users.daily.userId);
      // A viewer chooses for themselves too.
      assert.equal((await api.call('GET', `/v1/workspaces/${ws.ny}/notifications`, { key: users.viewer.apiKey })).body.digest, 'none');
      for (const bad of [{ digest: 'monthly' }, {}, { digest: 'daily', userId: owner.userId }]) {
        const res = await api.call('PUT', `/v1/workspaces/${ws.quiet}/notifications`, { key: owner.apiKey, body: bad });
        assert.equal(res.status, 400, JSON.stringify(bad));
      }
      assert.equal((await api.call('GET', `/v1/workspaces/${ws.quiet}/notifications`, { key: owner.apiKey })).body.updatedAt, null, 'a refused change changes nothing');
      // Not a member: 404, as for a workspace that does not exist.
      assert.equal((await api.call('GET', `/v1/workspaces/${ws.berlin}/notifications`, { key: users.never.apiKey })).status, 404);
      const outsider = await api.owner();
      assert.equal((await api.call('PUT', `/v1/workspaces/${ws.ny}/notifications`, { key: outsider.apiKey, body: { digest: 'none' } })).status, 404);
      const activity = (await api.call('GET', '/v1/activity', { key: users.daily.apiKey, query: { workspace_id: ws.ny, kind: 'digest' } })).body.data;
      assert.ok(activity.some((a: { action: string; target: { id: string }; details: { to: string } }) => a.action === 'digest.preference_changed' && a.target.id === users.daily.userId && a.details.to === 'daily'), JSON.stringify(activity));
    });

    it('two workers through weeks with both DST changes of New York and Berlin: each member\'s digest exactly once, at 09:00 local, over SMTP', async () => {
      for (const [from, to] of WINDOWS) for (let t = at(from); t <= at(to); t += HOUR) await tick(t);
      // Restarted workers at the end of the last window: nothing is sent again.
      await tick(at('2027-11-09T00:00:00Z'));

      const rows = await api.db('digests').select('id', 'workspace_id', 'user_id', 'frequency', 'period_start', 'period_end', 'state');
      const byId = new Map(rows.map((r) => [r.id as string, r]));
      const got: string[] = [];
      const ids = new Set<string>();
      for (const { envelope, mail } of smtp.received) {
        const id = /^<digest-([0-9a-f-]{36})@/.exec(mail.messageId ?? '')?.[1];
        assert.ok(id, mail.messageId);
        assert.ok(!ids.has(id), `received twice: ${id}`);
        ids.add(id);
        const row = byId.get(id)!;
        assert.equal(row.state, 'sent');
        const who = Object.entries(users).find(([, u]) => u.userId === row.user_id)![0];
        assert.deepEqual(envelope.to, [users[who].email]);
        const where = Object.entries(ws).find(([, w]) => w === row.workspace_id)![0];
        got.push(`${where} ${who} ${row.frequency} ${iso(Number(row.period_end))}`);
      }
      const expected = [
        ...WEEKLY.flatMap((d) => [`ny owner weekly ${nineAm('ny', d)}`, `berlin owner weekly ${nineAm('berlin', d)}`]),
        ...DAILY.flatMap((d) => [`ny daily daily ${nineAm('ny', d)}`, `berlin daily daily ${nineAm('berlin', d)}`]),
      ];
      assert.deepEqual(got.sort(), expected.sort());
      // Every row sent was received, once; the quiet workspace had nothing to say: skipped, no mail.
      assert.equal(rows.filter((r) => r.state === 'sent').length, smtp.received.length);
      const quiet = rows.filter((r) => r.workspace_id === ws.quiet);
      assert.equal(quiet.length, WEEKLY.length);
      assert.ok(quiet.every((r) => r.state === 'skipped'));
      // Periods tile: each weekly digest begins where the one before ended (the weeks with a change are 167 and 169 hours).
      const nyWeeks = rows.filter((r) => r.workspace_id === ws.ny && r.frequency === 'weekly').sort((a, b) => Number(a.period_end) - Number(b.period_end));
      assert.equal(iso(Number(nyWeeks[1].period_start)), nineAm('ny', '2027-03-08'));
      assert.equal((Number(nyWeeks[1].period_end) - Number(nyWeeks[1].period_start)) / HOUR, 167);
      const nyFall = nyWeeks.find((r) => iso(Number(r.period_end)) === nineAm('ny', '2027-11-08'))!;
      assert.equal((Number(nyFall.period_end) - Number(nyFall.period_start)) / HOUR, 169);
    });

    it('a digest: text and HTML parts, a link to each item, List-Unsubscribe with one-click POST (RFC 8058)', async () => {
      const { mail } = smtp.received.find((m) => m.envelope.to[0] === users.owner.email && /Weekly digest/.test(m.mail.subject ?? '') && m.mail.subject?.startsWith('Weekly digest: ny ') && m.mail.subject.endsWith(LOCAL_WEEK))!;
      assert.ok(mail, 'the New York weekly digest of 15 March');
      assert.ok(mail.html, 'an HTML part');
      const text = mail.text!;
      // The seven deploys of the week, each with its verdict and link.
      const deployLinks = text.match(new RegExp(`${api.url}/v1/deploys/[0-9a-f-]{36}`, 'g')) ?? [];
      assert.equal(deployLinks.length, 7, text);
      assert.match(text, /to staging \(main\), .*: not checked/);
      assert.match(text, /No search data for this period\./);
      assert.ok(typeof mail.html === 'string' && mail.html.includes(`<a href="${deployLinks[0]}">details</a>`));
      const header = (name: string) => mail.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '').replace(/\r?\n\s+/g, '');
      const listUnsubscribe = header('list-unsubscribe');
      assert.match(listUnsubscribe ?? '', new RegExp(`^<${api.url}/v1/unsubscribe\\?token=shu_[^>]+>$`));
      assert.equal(header('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
      assert.ok(text.includes(listUnsubscribe!.slice(1, -1)), 'the same link is in the text for people');
    });

    it('one-click unsubscribe works once without a key; tampered or reused tokens are refused and change nothing', async () => {
      const digestOf = (who: string, where: string, frequency: string) =>
        smtp.received.filter((m) => m.envelope.to[0] === users[who].email && m.mail.subject?.startsWith(`${frequency === 'weekly' ? 'Weekly' : 'Daily'} digest: ${where} `));
      const linkOf = (m: (typeof smtp.received)[number]) => /(https?:\/\/\S+\/v1\/unsubscribe\?token=\S+)/.exec(m.mail.text!)![1];
      const [first, second] = digestOf('owner', 'ny', 'weekly').map(linkOf);
      const token = new URL(first).searchParams.get('token')!;
      // A log line never carries it, as typed or as a URL carries it.
      assert.equal(redactSecrets(`GET /v1/unsubscribe?token=${token} and ${encodeURIComponent(token)}`), 'GET /v1/unsubscribe?token=shu_[REDACTED] and shu_[REDACTED]');
      const post = (t: string, o: { body?: string; type?: string; accept?: string } = {}) =>
        api.call('POST', '/v1/unsubscribe', { query: { token: t }, rawBody: o.body ?? 'List-Unsubscribe=One-Click', headers: { 'content-type': o.type ?? 'application/x-www-form-urlencoded', ...(o.accept ? { accept: o.accept } : {}) } });

      // Tampered: its random part, or its digest id changed.
      const tampered = [token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), token.replace(/^shu_(.)/, (_, c: string) => `shu_${c === '0' ? '1' : '0'}`), 'shu_nonsense'];
      for (const t of tampered) {
        const res = await post(t);
        assert.equal(res.status, 404, t);
        assert.equal(res.body.code, 'not_found');
      }
      assert.equal((await api.call('GET', `/v1/workspaces/${ws.ny}/notifications`, { key: owner.apiKey })).body.digest, 'weekly', 'nothing changed');
      // The page the link opens changes nothing either (mail scanners follow links).
      const page = await api.call('GET', '/v1/unsubscribe', { query: { token } });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
      assert.match(page.text, /<form method="post" action="\?token=shu_/);
      assert.equal((await api.call('GET', `/v1/workspaces/${ws.ny}/notifications`, { key: owner.apiKey })).body.digest, 'weekly');

      const done = await post(token);
      assert.equal(done.status, 200, done.text);
      assert.deepEqual({ ...done.body, workspaceName: undefined }, { workspaceId: ws.ny, workspaceName: undefined, email: users.owner.email, digest: 'none' });
      const settings = (await api.call('GET', `/v1/workspaces/${ws.ny}/notifications`, { key: owner.apiKey })).body;
      assert.equal(settings.digest, 'none');
      // Reused: 409, and still nothing more changes.
      const again = await post(token);
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'token_used');
      assert.equal((await api.call('GET', '/v1/unsubscribe', { query: { token } })).status, 409);
      assert.equal((await api.call('GET', `/v1/workspaces/${ws.ny}/notifications`, { key: owner.apiKey })).body.updatedAt, settings.updatedAt);
      const activity = (await api.call('GET', '/v1/activity', { key: owner.apiKey, query: { workspace_id: ws.ny, kind: 'digest' } })).body.data;
      assert.equal(activity.filter((a: { action: string }) => a.action === 'digest.unsubscribed').length, 1);
      assert.ok(activity.some((a: { action: string }) => a.action === 'digest.sent'));

      // Another digest's token, as a browser's form (multipart) asking for HTML; then a bare POST with no body.
      await api.call('PUT', `/v1/workspaces/${ws.ny}/notifications`, { key: owner.apiKey, body: { digest: 'weekly' } });
      const boundary = 'xYzBoundary';
      const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
      const html = await post(new URL(second).searchParams.get('token')!, { body: multipart, type: `multipart/form-data; boundary=${boundary}`, accept: 'text/html' });
      assert.equal(html.status, 200, html.text);
      assert.match(html.text, /gets no more digests of/);
      const daily = digestOf('daily', 'berlin', 'daily').map(linkOf)[0];
      const bare = await api.call('POST', '/v1/unsubscribe', { query: { token: new URL(daily).searchParams.get('token')! } });
      assert.equal(bare.status, 200, bare.text);
      // Bodies that are not the form: refused before the token is looked at.
      const json = await post(token, { body: '{"List-Unsubscribe":"One-Click"}', type: 'application/json' });
      assert.equal(json.status, 415);
      const unused = new URL(digestOf('daily', 'ny', 'daily').map(linkOf)[0]).searchParams.get('token')!;
      for (const body of ['List-Unsubscribe=One%00Click', `List-Unsubscribe=${'x'.repeat(30)}`, 'List-Unsubscribe=One-Click&extra=1']) {
        const res = await post(unused, { body });
        assert.equal(res.status, 400, body);
        assert.equal(res.body.code, 'validation_failed');
      }
      assert.equal((await api.call('GET', '/v1/unsubscribe', { query: { token: unused } })).status, 200, 'still unused');

      // The next Monday: the owner gets Berlin's weekly digest, not New York's; the daily member no Berlin daily.
      const before = smtp.received.length;
      await tick(at('2027-11-15T15:00:00Z'));
      const fresh = smtp.received.slice(before).map((m) => `${m.envelope.to[0] === users.owner.email ? 'owner' : 'daily'} ${m.mail.subject!.split(':')[0]} ${m.mail.subject!.split(': ')[1].split(' ')[0]}`);
      assert.deepEqual(fresh.sort(), ['daily Daily digest ny', 'owner Weekly digest berlin']);
    });

    it('reports: any period as JSON or as a printable HTML page; bad periods are 400 and other accounts 404', async () => {
      const res = await api.call('GET', `/v1/workspaces/${ws.ny}/report`, { key: users.viewer.apiKey, query: { from: '2027-03-08', to: '2027-03-14' } });
      assert.equal(res.status, 200, res.text);
      const r = res.body;
      // Local days: 8 March 00:00 EST (05:00 UTC) to 15 March 00:00 EDT (04:00 UTC).
      assert.equal(r.from, '2027-03-08T05:00:00.000Z');
      assert.equal(r.to, '2027-03-15T04:00:00.000Z');
      assert.equal(r.deploys.length, 7);
      assert.ok(r.deploys.every((d: { verdict: string; link: string }) => d.verdict === 'not_checked' && d.link.startsWith(`${serverUrl}/v1/deploys/`)));
      assert.equal(r.search, null);
      const page = await api.call('GET', `/v1/workspaces/${ws.ny}/report`, { key: owner.apiKey, query: { from: '2027-03-08', to: '2027-03-14' }, headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /^text\/html; charset=utf-8/);
      assert.match(page.text, /<h2>Deploys<\/h2><ul>(<li>.*?<\/li>){7}<\/ul>/);
      for (const [q, pathName] of [
        [{ from: '2027-03-09', to: '2027-03-08' }, '/to'],
        [{ from: '2026-01-01', to: '2027-03-08' }, '/to'],
        [{ from: '2027-02-30', to: '2027-03-08' }, '/from'],
        [{ from: '2027-03-01' }, '/to'],
        [{ from: '0001-01-01', to: '0001-01-05' }, '/from'],
        [{ from: '9999-12-25', to: '9999-12-31' }, '/to'],
      ] as const) {
        const bad = await api.call('GET', `/v1/workspaces/${ws.ny}/report`, { key: owner.apiKey, query: q });
        assert.equal(bad.status, 400, JSON.stringify(q));
        assert.ok(bad.body.errors.some((e: { path: string }) => e.path === pathName), bad.text);
      }
      const outsider = await api.owner();
      assert.equal((await api.call('GET', `/v1/workspaces/${ws.ny}/report`, { key: outsider.apiKey, query: { from: '2027-03-08', to: '2027-03-14' } })).status, 404);
    });

    it('a report\'s findings, resolved findings with their top cause, pages that lost clicks and search totals', async () => {
      const w = ws.quiet;
      const url = 'https://www.example.com/pricing';
      const cause = { path: 'src/pages/pricing.tsx', category: 'page', signals: [{ kind: 'meta_robots', change: 'added' }], score: 0.9, reason: 'added `meta_robots` signal in a page matching /pricing' };
      const finding = { kind: 'noindex_added', severity: 'critical', url, before: null, after: ['noindex'], causes: [cause], explanation: null };
      const issue = { kind: 'noindex_added', severity: 'critical', url, value: ['noindex'] };
      const check = (finishedAt: string, findings: object[], issues: object[]) => ({
        id: crypto.randomUUID(),
        workspace_id: w,
        deploy_id: null,
        state: 'finished',
        trigger_kind: 'schedule',
        scheduled_at: at(finishedAt) - 60_000,
        started_at: at(finishedAt) - 30_000,
        finished_at: at(finishedAt),
        pages: JSON.stringify([{ url }]),
        findings: JSON.stringify({ findings, issues }),
        created_at: at(finishedAt) - 60_000,
      });
      // Found on 3 October, gone on 5 October (Berlin days).
      const found = check('2026-10-03T10:00:00Z', [finding], [issue]);
      const fixed = check('2026-10-05T10:00:00Z', [], []);
      await api.db('site_checks').insert([found, fixed]);
      // A crawl finds a broken link on 2 October; the next, on 6 October, no longer does.
      const broken = { kind: 'broken_link', severity: 'high', url: 'https://www.example.com/old', details: { from: '/', status: 404 } };
      const crawl = (finishedAt: string, findings: object) => ({
        id: crypto.randomUUID(), workspace_id: w, deploy_id: null, state: 'finished', trigger_kind: 'schedule', scheduled_at: at(finishedAt) - 60_000,
        started_at: at(finishedAt) - 30_000, finished_at: at(finishedAt), pages_crawled: 3, pages: '[]', findings: JSON.stringify(findings), created_at: at(finishedAt) - 60_000,
      });
      const crawled = crawl('2026-10-02T10:00:00Z', { all: [broken], crawlFindings: [{ ...broken, causes: [], explanation: 'No deploy was recorded before this crawl.' }] });
      const recrawled = crawl('2026-10-06T10:00:00Z', { all: [], crawlFindings: [] });
      await api.db('site_crawls').insert([crawled, recrawled]);
      // Search data: 28 September to 11 October; /pricing loses clicks in the second week.
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'digest-search-')), 'search.csv');
      const lines = ['date,page,clicks,impressions'];
      for (const d of days('2026-09-28', '2026-10-04')) lines.push(`${d},${url},10,100`, `${d},https://www.example.com/,5,50`);
      for (const d of days('2026-10-05', '2026-10-11')) lines.push(`${d},${url},4,90`, `${d},https://www.example.com/,6,50`);
      fs.writeFileSync(file, lines.join('\n'));
      await importSearchData(api.db, { workspaceId: w, file });

      const week1 = (await api.call('GET', `/v1/workspaces/${w}/report`, { key: owner.apiKey, query: { from: '2026-09-28', to: '2026-10-04' } })).body;
      assert.equal(week1.newFindings.length, 2);
      assert.deepEqual(week1.newFindings[0], { source: 'check', kind: 'noindex_added', severity: 'critical', url, runId: found.id, at: '2026-10-03T10:00:00.000Z', topCause: cause, explanation: null, link: `${serverUrl}/v1/site-checks/${found.id}` });
      assert.deepEqual(week1.newFindings[1], { source: 'crawl', kind: 'broken_link', severity: 'high', url: broken.url, runId: crawled.id, at: '2026-10-02T10:00:00.000Z', topCause: null, explanation: 'No deploy was recorded before this crawl.', link: `${serverUrl}/v1/site-crawls/${crawled.id}` });
      assert.deepEqual(week1.resolvedFindings, []);
      assert.deepEqual(week1.search.current, { from: '2026-09-28', to: '2026-10-04', days: 7, clicks: 105, impressions: 1050 });
      assert.equal(week1.search.previous.days, 0);
      assert.equal(week1.search.clicksChange, null);

      const week2 = (await api.call('GET', `/v1/workspaces/${w}/report`, { key: owner.apiKey, query: { from: '2026-10-05', to: '2026-10-11' } })).body;
      assert.deepEqual(week2.newFindings, []);
      assert.deepEqual(week2.resolvedFindings.map((f: { source: string; kind: string; runId: string }) => [f.source, f.kind, f.runId]), [['check', 'noindex_added', fixed.id], ['crawl', 'broken_link', recrawled.id]]);
      assert.deepEqual(week2.resolvedFindings[0].topCause, cause, 'the cause it was first given');
      assert.deepEqual(week2.lostClicks, [{ url, clicks: 28, previousClicks: 70, lostClicks: 42, link: `${serverUrl}/v1/site-checks/latest?workspace_id=${w}` }]);
      assert.equal(week2.search.current.clicks, 70);
      assert.equal(week2.search.previous.clicks, 105);
      assert.equal(week2.search.clicksChange, -0.3333);
      const html = (await api.call('GET', `/v1/workspaces/${w}/report`, { key: owner.apiKey, query: { from: '2026-10-05', to: '2026-10-11' }, headers: { accept: 'text/html' } })).text;
      assert.match(html, /noindex_added on https:\/\/www\.example\.com\/pricing \(was caused by src\/pages\/pricing\.tsx\)/);
      assert.match(html, /28 clicks, 42 fewer than the period before \(70\)/);
    });

    it('a worker\'s own schedule tick queues the digests due and sends them', async () => {
      const res = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Ticked ${crypto.randomUUID()}`, website: 'https://www.example.com', timezone: 'Asia/Tokyo', check_schedule: 'off', crawl_schedule: 'off' } });
      const w = res.body.data.id;
      await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId: w, commitSha: 'abcdef3', environment: 'staging', deployedAt: '2027-12-22T03:00:00Z' } });
      await Workspace.query(api.db).findById(w).patch({ created_at: at('2027-12-19T00:00:00Z') });
      // Monday 27 December 2027, 09:05 in Tokyo (00:05 UTC).
      const runner = testRunner(pools[0], { config, now: () => at('2027-12-27T00:05:00Z'), scheduleTickMs: 60_000, pollMs: 50 });
      await runner.start();
      try {
        await waitFor('the digest', async () => smtp.received.find((m) => m.mail.subject?.includes(res.body.data.name)));
      } finally {
        await runner.stop(1000);
      }
      const got = smtp.received.filter((m) => m.mail.subject?.includes(res.body.data.name));
      assert.equal(got.length, 1);
      assert.match(got[0].mail.subject!, /^Weekly digest: Ticked .*, Mon, 20 Dec 2027, 09:00 to Mon, 27 Dec 2027, 09:00$/);
    });

    it('a refused send is retried for that member alone; a restarted worker sends nobody twice', async () => {
      const res = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Retry ${crypto.randomUUID()}`, website: 'https://www.example.com', timezone: 'UTC', check_schedule: 'off', crawl_schedule: 'off' } });
      const w = res.body.data.id;
      await api.member(w, users.never.userId, 'member');
      await api.call('PUT', `/v1/workspaces/${w}/notifications`, { key: users.never.apiKey, body: { digest: 'weekly' } });
      await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId: w, commitSha: 'abcdef1', environment: 'staging', deployedAt: '2027-12-01T12:00:00Z' } });
      await Workspace.query(api.db).findById(w).patch({ created_at: at('2027-11-29T00:00:00Z') });
      const mine = () => smtp.received.filter((m) => m.mail.subject?.includes(res.body.data.name)).map((m) => m.envelope.to[0]).sort();
      refused.add(users.never.email);
      const monday = at('2027-12-06T09:10:00Z');
      await tick(monday);
      assert.deepEqual(mine(), [users.owner.email]);
      const job = await api.db('jobs').where({ kind: 'digest', workspace_id: w }).first();
      assert.equal(job.state, 'queued', 'to be retried');
      assert.match(job.last_error ?? '', /Mailbox unavailable/);
      // The mailbox is back and the retry is due; two workers, restarted, tick again.
      refused.clear();
      await api.db('jobs').where({ id: job.id }).update({ run_at: Date.now() });
      await tick(monday + HOUR);
      await tick(monday + 2 * HOUR);
      assert.deepEqual(mine(), [users.owner.email, users.never.email].sort());
      const rows = await api.db('digests').where({ workspace_id: w });
      assert.deepEqual(rows.map((r) => r.state), ['sent', 'sent']);

      // A worker took the owner's next digest and died before recording it: the job does not finish
      // while that row is held, and once it is stale a retry sends it, once.
      await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId: w, commitSha: 'abcdef2', environment: 'staging', deployedAt: '2027-12-08T12:00:00Z' } });
      const held = crypto.randomUUID();
      await api.db('digests').insert({ id: held, workspace_id: w, user_id: owner.userId, frequency: 'weekly', period_start: at('2027-12-06T09:00:00Z'), period_end: at('2027-12-13T09:00:00Z'), state: 'sending', attempt_at: Date.now(), created_at: Date.now() });
      const next = at('2027-12-13T09:10:00Z');
      await tick(next);
      assert.deepEqual(mine(), [users.owner.email, users.never.email, users.never.email].sort());
      const waiting = await api.db('jobs').where({ kind: 'digest', workspace_id: w, state: 'queued' }).first();
      assert.match(waiting?.last_error ?? '', /being sent by another worker/);
      await api.db('digests').where({ id: held }).update({ attempt_at: Date.now() - STALE_SEND_MS - 1000 });
      await api.db('jobs').where({ id: waiting.id }).update({ run_at: Date.now() });
      await tick(next + HOUR);
      await tick(next + 2 * HOUR);
      assert.deepEqual(mine(), [users.owner.email, users.owner.email, users.never.email, users.never.email].sort());
      assert.equal((await api.db('digests').where({ id: held }).first()).state, 'sent');
      assert.equal((await api.db('jobs').where({ id: waiting.id }).first()).state, 'done');
    });
  });
}
