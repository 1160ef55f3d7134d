// Connected repositories end to end, for both hosts: connect against a stub host speaking the
// real REST shapes, verify (GitHub's ping), push to a mapped branch with the hosts' real payloads
// (@octokit/webhooks-examples; GitLab's documented examples in test/fixtures/gitlab), a deploy
// with source github or gitlab whose changes and signals are the stub's patches read by the same
// signal reader as the CLI, the site check of the local fixture website by a real worker
// process, and the commit status posted back. Then the limits and every bad input.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import examples from '@octokit/webhooks-examples';
import { changesFromFilePatches } from '@sitehealth/sdk/signals';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { StubRepoHost, type StubFile } from './support/repo-hosts.ts';
import { htmlPage, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';
import { killAll, root, startWorkerProcess, waitUntil, type Proc } from './support/processes.ts';

after(dropCreatedDatabases);
after(killAll);

const SECRETS_KEY = crypto.randomBytes(32).toString('base64');
const ENV = { ALLOW_PRIVATE_NETWORK: '1', SECRETS_KEY, SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '3600', PUBLIC_URL: 'https://sitehealth.example.com', FETCH_TIMEOUT_MS: '1500' };
const TOKEN = { github: 'ghp_e2eStubToken000000000001', gitlab: 'glpat-e2eStubToken00000001' } as const;
const REPO = { github: 'acme/site', gitlab: 'acme/web/site' } as const;

const example = (name: string) => structuredClone((examples as unknown as Array<{ name: string; examples: Array<Record<string, any>> }>).find((e) => e.name === name)!.examples[0]);
const gitlabFixture = (file: string) => JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/gitlab', file), 'utf8')) as Record<string, any>;

const PAGE_FILE: StubFile = {
  path: 'src/pages/index.astro',
  status: 'modified',
  patch: '@@ -3,3 +3,3 @@\n <head>\n-  <link rel="canonical" href="https://www.example.com/" />\n+  <meta name="robots" content="noindex" />\n   <title>Home</title>',
};
const ROBOTS_FILE: StubFile = { path: 'public/robots.txt', status: 'added', patch: '@@ -0,0 +1,2 @@\n+User-agent: *\n+Disallow: /private' };
const STYLE_FILE: StubFile = { path: 'src/styles/site.css', status: 'modified', patch: '@@ -1 +1 @@\n-body { color: black }\n+body { color: #111 }' };
const fileN = (i: number): StubFile => ({ path: `content/posts/post-${i}.md`, status: 'added', patch: `@@ -0,0 +1 @@\n+# Post ${i}` });

for (const engine of engines()) {
  describe(`connected repositories end to end (${engine})`, () => {
    let api: TestApi;
    let worker: Proc;
    let site: FixtureSite;
    const hosts: Partial<Record<'github' | 'gitlab', StubRepoHost>> = {};

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
      site.set('/', htmlPage({ title: 'Home', h1: ['Home'], words: 50 }));
      hosts.github = await StubRepoHost.start('github', REPO.github, TOKEN.github);
      hosts.gitlab = await StubRepoHost.start('gitlab', REPO.gitlab, TOKEN.gitlab);
      worker = await startWorkerProcess(api.dbUrl, ENV);
    });
    after(async () => {
      await worker?.stop();
      await api.stop();
      await site.close();
      await hosts.github?.close();
      await hosts.gitlab?.close();
    });

    async function connect(provider: 'github' | 'gitlab', extra: Record<string, unknown> = {}) {
      const u = await api.user();
      const workspaceId = await api.workspace(u, { website: site.url('/') });
      const key = (await api.key(u.userId)).apiKey;
      const res = await api.call('POST', `/v1/workspaces/${workspaceId}/connections`, {
        key,
        body: { provider, baseUrl: hosts[provider]!.baseUrl, repository: REPO[provider], token: TOKEN[provider], branches: { main: 'production' }, ...extra },
      });
      assert.equal(res.status, 201, res.text);
      return { workspaceId, key, connection: res.body as { id: string; webhookSecret: string; webhookUrl: string } };
    }

    /** Sends a delivery as the host would: raw JSON, its event and delivery headers, signed with `secret`. */
    async function deliver(provider: 'github' | 'gitlab', id: string, secret: string, event: string, body: unknown, opts: { delivery?: string; raw?: string | Buffer; headers?: Record<string, string> } = {}) {
      const raw = opts.raw ?? JSON.stringify(body);
      const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
      if (provider === 'github') {
        headers['x-github-event'] = event;
        headers['x-github-delivery'] = opts.delivery ?? crypto.randomUUID();
        headers['x-hub-signature-256'] ??= `sha256=${crypto.createHmac('sha256', secret).update(raw).digest('hex')}`;
      } else {
        headers['x-gitlab-event'] = event;
        headers['x-gitlab-event-uuid'] = opts.delivery ?? crypto.randomUUID();
        headers['x-gitlab-token'] ??= secret;
      }
      const unchecked = Buffer.isBuffer(raw) && raw.length > 1024 * 1024;
      return api.call('POST', `/v1/hooks/${provider}/${id}`, { key: null, rawBody: raw, headers, unchecked });
    }

    function pushBody(provider: 'github' | 'gitlab', branch: string, before: string | null, after: string, commits: string[]) {
      const zero = '0'.repeat(40);
      if (provider === 'github') {
        const p = example('push');
        const commit = (sha: string) => ({ ...p.head_commit, id: sha, tree_id: sha, message: `commit ${sha.slice(0, 7)}` });
        return { ...p, ref: `refs/heads/${branch}`, before: before ?? zero, after, created: before === null, commits: commits.map(commit), head_commit: commit(after) };
      }
      const p = gitlabFixture('push-hook.json');
      return { ...p, ref: `refs/heads/${branch}`, before: before ?? zero, after, checkout_sha: after, total_commits_count: commits.length, commits: commits.map((sha, i) => ({ ...p.commits[i % p.commits.length], id: sha, message: `commit ${sha.slice(0, 7)}` })) };
    }

    const deliveries = async (connectionId: string) => Number((await api.db('repository_deliveries').where({ connection_id: connectionId }).count({ n: '*' }))[0].n);
    const deploysOf = async (workspaceId: string, key: string) => (await api.call('GET', '/v1/deploys', { key, query: { workspace_id: workspaceId } })).body.data as any[];
    async function deployOf(workspaceId: string, key: string, sha: string): Promise<any> {
      await waitUntil(`the deploy of ${sha.slice(0, 7)}`, async () => (await deploysOf(workspaceId, key)).some((d) => d.commitSha === sha), 45_000);
      const d = (await deploysOf(workspaceId, key)).find((x) => x.commitSha === sha);
      return (await api.call('GET', `/v1/deploys/${d.id}`, { key })).body;
    }
    const expected = (files: StubFile[]) =>
      changesFromFilePatches(files.map((f) => ({ path: f.path, status: f.status === 'removed' ? 'deleted' : f.status, patch: f.patch }))).changes;

    for (const provider of ['github', 'gitlab'] as const) {
      it(`${provider}: connect, verify, push, a deploy with the stub's changes, the check, and the commit statuses`, async () => {
        const host = hosts[provider]!;
        site.set('/', htmlPage({ title: 'Home', h1: ['Home'], words: 50 }));
        const { workspaceId, key, connection } = await connect(provider);
        if (provider === 'github') {
          const ping = await deliver(provider, connection.id, connection.webhookSecret, 'ping', example('ping'));
          assert.equal(ping.status, 200, ping.text);
          assert.equal(ping.body.outcome, 'verified');
        }
        const c0 = host.commit(null, [], 'initial');
        const c1 = host.commit(c0, [PAGE_FILE, ROBOTS_FILE], 'first change');
        const first = await deliver(provider, connection.id, connection.webhookSecret, provider === 'github' ? 'push' : 'Push Hook', pushBody(provider, 'main', c0, c1, [c1]));
        assert.equal(first.status, 202, first.text);
        assert.equal(first.body.outcome, 'queued');
        const listed = (await api.call('GET', `/v1/workspaces/${workspaceId}/connections`, { key })).body.data[0];
        assert.equal(listed.state, 'verified');

        // The first deploy of the environment: the push's own commit, read commit by commit.
        const d1 = await deployOf(workspaceId, key, c1);
        assert.equal(d1.source, provider);
        assert.equal(d1.environment, 'production');
        assert.equal(d1.ref, 'main');
        assert.deepEqual(d1.changes, expected([PAGE_FILE, ROBOTS_FILE]));
        assert.ok(d1.changes[0].signals.some((s: any) => s.kind === 'canonical' && s.change === 'removed'));
        assert.equal(d1.changesTruncated, false);
        assert.equal(d1.changesNote, null);
        await waitUntil('the first check to finish', async () => (await api.call('GET', `/v1/deploys/${d1.id}`, { key })).body.siteCheck?.state === 'finished', 45_000);
        await waitUntil('the first final status', () => host.statuses.filter((s) => s.sha === c1).length >= 2, 30_000);
        const s1 = host.statuses.filter((s) => s.sha === c1).map((s) => s.body);
        const stateKey = 'state';
        assert.equal(s1[0][stateKey], 'pending');
        assert.equal(s1.at(-1)![stateKey], 'success');
        assert.match(String(s1.at(-1)!.description), /^No regressions on \d+ pages?$/);
        const context = provider === 'github' ? 'context' : 'name';
        assert.equal(s1.at(-1)![context], 'sitehealth/production');
        assert.equal(s1.at(-1)!.target_url, `https://sitehealth.example.com/v1/deploys/${d1.id}`);

        // The site gets worse; the second push is compared with the first deploy's commit.
        site.set('/', htmlPage({ title: 'Home', h1: ['Home'], words: 50, robots: 'noindex' }));
        const c2 = host.commit(c1, [STYLE_FILE], 'second change');
        const second = await deliver(provider, connection.id, connection.webhookSecret, provider === 'github' ? 'push' : 'Push Hook', pushBody(provider, 'main', c1, c2, [c2]));
        assert.equal(second.status, 202);
        const d2 = await deployOf(workspaceId, key, c2);
        assert.deepEqual(d2.changes, expected([STYLE_FILE]));
        assert.ok(host.requestsTo(provider === 'github' ? new RegExp(`/compare/${c1}\\.\\.\\.${c2}$`) : new RegExp(`/repository/compare\\?from=${c1}&to=${c2}`)).length > 0);
        await waitUntil('the second final status', () => host.statuses.filter((s) => s.sha === c2 && s.body[stateKey] !== 'pending').length >= 1, 45_000);
        const s2 = host.statuses.filter((s) => s.sha === c2).at(-1)!.body;
        const detail = (await api.call('GET', `/v1/deploys/${d2.id}`, { key })).body;
        assert.ok(detail.findings.length > 0, JSON.stringify(detail.siteCheck));
        const worst = detail.findings.find((f: any) => f.severity === 'critical') ?? detail.findings[0];
        assert.equal(s2[stateKey], provider === 'github' ? 'failure' : 'failed');
        assert.ok(String(s2.description).length < 140);
        assert.ok(String(s2.description).includes(worst.kind), `${s2.description} names ${worst.kind}`);
        // The deploy is a deploy like any other: in the list, with its check.
        const inList = (await deploysOf(workspaceId, key)).find((d) => d.id === d2.id);
        assert.equal(inList.siteCheck.state, 'finished');
      });
    }

    it('bad input records nothing: a bad signature, a replay, 25 MB, malformed JSON, an unmapped branch, other events', async () => {
      for (const provider of ['github', 'gitlab'] as const) {
        const host = hosts[provider]!;
        const { connection } = await connect(provider);
        const ev = provider === 'github' ? 'push' : 'Push Hook';
        const c0 = host.commit(null, [], 'base');
        const c1 = host.commit(c0, [STYLE_FILE]);
        const body = pushBody(provider, 'main', c0, c1, [c1]);
        const n0 = await deliveries(connection.id);

        const forged = await deliver(provider, connection.id, 'not-the-secret', ev, body);
        assert.equal(forged.status, 401, forged.text);
        assert.equal(forged.body.code, 'bad_signature');
        const unsigned = await deliver(provider, connection.id, '', ev, body, { headers: provider === 'github' ? { 'x-hub-signature-256': '' } : { 'x-gitlab-token': '' } });
        assert.equal(unsigned.status, 401);
        const unknown = await deliver(provider, crypto.randomUUID(), connection.webhookSecret, ev, body);
        assert.equal(unknown.status, 404);
        assert.equal(await deliveries(connection.id), n0);

        const malformed = await deliver(provider, connection.id, connection.webhookSecret, ev, null, { raw: '{"ref": "refs/heads/main",' });
        assert.equal(malformed.status, 400);
        assert.equal(malformed.body.code, 'invalid_json');
        const huge = await deliver(provider, connection.id, connection.webhookSecret, ev, null, { raw: Buffer.alloc(25 * 1024 * 1024 + 10, 0x20) });
        assert.equal(huge.status, 413);
        // Signed, so past the signature: the same body rules as every other operation.
        const notAnObject = await deliver(provider, connection.id, connection.webhookSecret, ev, [body]);
        assert.equal(notAnObject.status, 400, notAnObject.text);
        assert.equal(notAnObject.body.code, 'validation_failed');
        // A payload is an open object: 5,000 levels under a field no event reads is parsed, not a crash, and ignored.
        const deep = await deliver(provider, connection.id, connection.webhookSecret, ev, null, { raw: `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}` });
        assert.equal(deep.status, 200, deep.text);
        assert.equal(deep.body.outcome, 'ignored');
        const form = await deliver(provider, connection.id, connection.webhookSecret, ev, null, { raw: `payload=${encodeURIComponent(JSON.stringify(body))}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        assert.equal(form.status, 415, form.text);
        const unmapped = await deliver(provider, connection.id, connection.webhookSecret, ev, pushBody(provider, 'feature/x', c0, c1, [c1]));
        assert.equal(unmapped.status, 200);
        assert.equal(unmapped.body.outcome, 'ignored');
        assert.match(unmapped.body.reason, /feature\/x is not mapped/);
        const other = await deliver(provider, connection.id, connection.webhookSecret, provider === 'github' ? 'issues' : 'Issue Hook', { action: 'opened' });
        assert.equal(other.status, 200);
        assert.equal(other.body.outcome, 'ignored');
        assert.equal(await deliveries(connection.id), n0);

        const delivery = crypto.randomUUID();
        const firstTime = await deliver(provider, connection.id, connection.webhookSecret, ev, body, { delivery });
        assert.equal(firstTime.status, 202);
        const replays = await Promise.all([1, 2, 3].map(() => deliver(provider, connection.id, connection.webhookSecret, ev, body, { delivery })));
        assert.deepEqual(replays.map((r) => [r.status, r.body.outcome]), [[200, 'duplicate'], [200, 'duplicate'], [200, 'duplicate']]);
        assert.equal(await deliveries(connection.id), n0 + 1);
      }
    });

    it('github: a compare past 300 files or 250 commits falls back to per-commit requests, and says what was cut', async () => {
      const host = hosts.github!;
      const { workspaceId, key, connection } = await connect('github');
      const c0 = host.commit(null, [], 'base');
      const d0 = host.commit(c0, [STYLE_FILE], 'deployed first');
      assert.equal((await deliver('github', connection.id, connection.webhookSecret, 'push', pushBody('github', 'main', c0, d0, [d0]))).status, 202);
      await deployOf(workspaceId, key, d0);
      // Three commits with 302 files in all: GitHub's compare lists 300, so each commit is read.
      const many = (from: number, n: number) => Array.from({ length: n }, (_, i) => fileN(from + i));
      const a = host.commit(d0, many(1, 150));
      const b = host.commit(a, [...many(151, 150), PAGE_FILE]);
      const c = host.commit(b, [ROBOTS_FILE]);
      assert.equal((await deliver('github', connection.id, connection.webhookSecret, 'push', pushBody('github', 'main', d0, c, [a, b, c]))).status, 202);
      const full = await deployOf(workspaceId, key, c);
      assert.equal(full.changes.length, 302);
      assert.deepEqual(full.changes.find((x: any) => x.path === PAGE_FILE.path), expected([PAGE_FILE])[0]);
      assert.ok(full.changes.some((x: any) => x.path === ROBOTS_FILE.path));
      for (const sha of [a, b, c]) assert.equal(host.requestsTo(new RegExp(`/commits/${sha}`)).length, 1, `per-commit request for ${sha.slice(0, 7)}`);
      assert.equal(full.changesTruncated, false);
      // A compare past its commit limit (GitHub's 250, here 2): the listed commits are read, the rest cut.
      host.compareMaxCommits = 2;
      const e1 = host.commit(c, [fileN(1001)]);
      const e2 = host.commit(e1, [fileN(1002)]);
      const e3 = host.commit(e2, [fileN(1003)]);
      assert.equal((await deliver('github', connection.id, connection.webhookSecret, 'push', pushBody('github', 'main', c, e3, [e1, e2, e3]))).status, 202);
      const cut = await deployOf(workspaceId, key, e3);
      assert.deepEqual(cut.changes.map((x: any) => x.path), [fileN(1001).path, fileN(1002).path]);
      assert.equal(cut.changesTruncated, true);
      assert.match(cut.changesNote, /3 commits since .*listed the first 2/);
      host.compareMaxCommits = 250;
    });

    it('a force-push whose previous commit is gone is recorded without changes, with the reason', async () => {
      for (const provider of ['github', 'gitlab'] as const) {
        const host = hosts[provider]!;
        const { workspaceId, key, connection } = await connect(provider);
        const ev = provider === 'github' ? 'push' : 'Push Hook';
        const c0 = host.commit(null, [], 'base');
        const old = host.commit(c0, [STYLE_FILE]);
        assert.equal((await deliver(provider, connection.id, connection.webhookSecret, ev, pushBody(provider, 'main', c0, old, [old]))).status, 202);
        await deployOf(workspaceId, key, old);
        host.commits.delete(old); // rewritten history: the deployed commit is gone
        const rewritten = host.commit(c0, [PAGE_FILE]);
        const body = { ...pushBody(provider, 'main', old, rewritten, [rewritten]), forced: true };
        assert.equal((await deliver(provider, connection.id, connection.webhookSecret, ev, body)).status, 202);
        const d = await deployOf(workspaceId, key, rewritten);
        assert.deepEqual(d.changes, []);
        assert.equal(d.source, provider);
        assert.match(d.changesNote, new RegExp(`previous deploy's commit ${old.slice(0, 7)} is no longer in`));
      }
    });

    it('a host that answers 500 or never answers is retried, then the deploy is kept without changes and the connection shows the error', async () => {
      for (const [provider, fail] of [
        ['github', (h: StubRepoHost) => h.failNext(/\/compare\//, 500, 1000)],
        ['gitlab', (h: StubRepoHost) => h.hangOn(/\/repository\/compare/)],
      ] as const) {
        const host = hosts[provider]!;
        const { workspaceId, key, connection } = await connect(provider);
        const ev = provider === 'github' ? 'push' : 'Push Hook';
        const c0 = host.commit(null, [], 'base');
        const c1 = host.commit(c0, [STYLE_FILE]);
        assert.equal((await deliver(provider, connection.id, connection.webhookSecret, ev, pushBody(provider, 'main', c0, c1, [c1]))).status, 202);
        await deployOf(workspaceId, key, c1);
        fail(host);
        const before = host.requestsTo(/compare/).length;
        const c2 = host.commit(c1, [PAGE_FILE]);
        assert.equal((await deliver(provider, connection.id, connection.webhookSecret, ev, pushBody(provider, 'main', c1, c2, [c2]))).status, 202);
        // The job's retries are due 5 and 10 s later (core/jobs/kinds.ts): made due at once here,
        // since what is under test is what each attempt does, not the backoff (jobs-queue tests it).
        await waitUntil(
          `${provider}: the deploy kept without changes`,
          async () => {
            await api.db('jobs').where({ kind: 'repository_deploy', state: 'queued' }).andWhere('run_at', '>', Date.now()).update({ run_at: Date.now() });
            return (await deploysOf(workspaceId, key)).some((d) => d.commitSha === c2);
          },
          90_000,
        );
        const d = await deployOf(workspaceId, key, c2);
        assert.deepEqual(d.changes, []);
        assert.match(d.changesNote, /did not answer/);
        // Three job attempts, each retrying the host three times.
        assert.equal(host.requestsTo(/compare/).length - before, 9, `${provider} compare attempts`);
        const shown = (await api.call('GET', `/v1/workspaces/${workspaceId}/connections`, { key })).body.data[0];
        assert.match(shown.lastError, /compare of/);
        assert.ok(shown.lastErrorAt);
        host.hangOn(null);
      }
    });

    it('a revoked token breaks the connection when the status is posted, with an activity row', async () => {
      const host = hosts.github!;
      site.set('/', htmlPage({ title: 'Home', h1: ['Home'], words: 50 }));
      const { workspaceId, key, connection } = await connect('github');
      const c0 = host.commit(null, [], 'base');
      const c1 = host.commit(c0, [STYLE_FILE]);
      host.failNext(/\/statuses\//, 401, 1000);
      assert.equal((await deliver('github', connection.id, connection.webhookSecret, 'push', pushBody('github', 'main', c0, c1, [c1]))).status, 202);
      await waitUntil('the connection to break', async () => (await api.call('GET', `/v1/workspaces/${workspaceId}/connections`, { key })).body.data[0].state === 'broken', 45_000);
      const activity = await api.call('GET', '/v1/activity', { key, query: { workspace_id: workspaceId, kind: 'connection' } });
      assert.ok(activity.body.data.some((a: any) => a.action === 'connection.broken' && a.target.id === connection.id));
    });
  });
}
