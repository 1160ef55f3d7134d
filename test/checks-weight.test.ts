// The page-weight rule (spec/site-checks.tsp, CheckFindingKind): growth judged relative to the
// page whatever its size, with a 10 KB floor. End to end on a real website on loopback: a small
// page that grew sevenfold with base64-inlined images is reported; a tiny page that gained a
// paragraph and a large page that grew by half are not; a large page that more than doubled is.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../core/platform/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner } from './support/jobs.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(dropCreatedDatabases);

const ENV = { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0', ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0' };
const PAGES = ['/small', '/tiny', '/large', '/larger'];

/** An <img> with `bytes` of base64 in its src (a picture pasted into the markup). */
const inlined = (bytes: number) => `<img src="data:image/png;base64,${'iVBORw0KGgo'.repeat(Math.ceil(bytes / 11)).slice(0, bytes)}" alt="">`;
/** A page of about `words` words of text, plus `extra` in its body. */
const page = (title: string, words: number, extra = '') => htmlPage({ title, description: title, h1: [title], words, links: ['/'], extraBody: extra });

function publish(site: FixtureSite, bodies: Record<string, string>): void {
  site.reset();
  site.set('/', htmlPage({ title: 'Home', description: 'Home', h1: ['Home'], words: 100, links: PAGES }));
  for (const [p, html] of Object.entries(bodies)) site.set(p, html);
  site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
  site.set('/sitemap.xml', sitemapXml(['/', ...PAGES].map((p) => site.url(p))));
}

type Finding = { kind: string; url: string; severity: string; before: unknown; after: unknown; causes: Array<{ path: string }> };

for (const engine of engines()) {
  describe(`page weight (${engine})`, () => {
    let api: TestApi;
    let site: FixtureSite;
    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
    });
    after(async () => {
      await site.close();
      await api.stop();
    });

    it('reports a small page that grew sevenfold, and a large one that doubled, but not a tiny gain or a large page grown by half', async () => {
      const owner = await api.owner();
      const ws = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Weight ${engine} ${crypto.randomUUID()}`, website: site.url('/') } });
      const workspaceId = ws.body.data.id;
      const deploy = async (changes: unknown[] = []) => {
        const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), changes } });
        assert.equal(res.status, 201, res.text);
        await testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV }) }).runDue();
        const d = (await api.call('GET', `/v1/deploys/${res.body.id}`, { key: owner.apiKey })).body;
        assert.equal(d.siteCheck.state, 'finished', d.siteCheck.error);
        return d as { findings: Finding[]; siteCheck: { pages: Array<{ url: string; bytes: number }> } };
      };

      publish(site, {
        '/small': page('Small', 300),
        '/tiny': htmlPage({ title: 'Tiny', words: 5 }),
        '/large': page('Large', 300, inlined(400_000)),
        '/larger': page('Larger', 300, inlined(200_000)),
      });
      const first = await deploy();
      assert.deepEqual(first.findings, []);
      const weight = (d: typeof first, p: string) => d.siteCheck.pages.find((x) => x.url === site.url(p))!.bytes;

      publish(site, {
        // Two pictures inlined as base64 and no longer lazy-loaded.
        '/small': page('Small', 300, inlined(6 * weight(first, '/small'))),
        // A paragraph more: more than double, but a few KB.
        '/tiny': htmlPage({ title: 'Tiny', words: 400 }),
        // Grown by half: 200 KB heavier, not double.
        '/large': page('Large', 300, inlined(600_000)),
        // More than doubled.
        '/larger': page('Larger', 300, inlined(450_000)),
      });
      const d = await deploy([
        { path: 'src/components/Footer.astro', category: 'component', signals: [{ kind: 'link', change: 'added', line: 3 }] },
        { path: 'src/pages/small.astro', category: 'page', signals: [{ kind: 'image', change: 'added', line: 12 }, { kind: 'lazy_loading', change: 'removed', line: 12 }] },
      ]);
      const small = [weight(first, '/small'), weight(d, '/small')];
      assert.ok(small[0] < 20_000 && small[1] >= 6.5 * small[0], `the small page grew sevenfold: ${small.join(' -> ')}`);
      const tiny = [weight(first, '/tiny'), weight(d, '/tiny')];
      assert.ok(tiny[1] >= 2 * tiny[0] && tiny[1] - tiny[0] < 10_000, `the tiny page more than doubled by less than 10 KB: ${tiny.join(' -> ')}`);

      const weights = d.findings.filter((f) => f.kind === 'page_weight_increased');
      assert.deepEqual(weights.map((f) => f.url).sort(), [site.url('/larger'), site.url('/small')], JSON.stringify(d.findings.map((f) => [f.kind, f.url])));
      const f = weights.find((x) => x.url === site.url('/small'))!;
      assert.equal(f.severity, 'low');
      assert.equal(f.before, `${Math.round(small[0] / 1000)} KB`);
      assert.equal(f.after, `${Math.round(small[1] / 1000)} KB`);
      assert.equal(f.causes[0]?.path, 'src/pages/small.astro');
    });
  });
}
