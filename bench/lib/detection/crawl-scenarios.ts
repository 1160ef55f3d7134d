// Corpus scenarios whose expected finding is a crawl kind (`crawlFindings` of the deploy): one
// per kind. See bench/lib/detection-corpus.ts for the shape of an entry.

import type { Scenario } from '../detection-corpus.ts';
import { deleteFile, modify, rename } from './changes.ts';
import { makeSite, page, robotsTxt, swap } from './site.ts';

const quarry = makeSite({
  brand: 'Quarry',
  pages: [['/about/team/', 'Our team'], ['/about/', 'About'], ['/services/', 'Services'], ['/blog/', 'Blog'], ['/blog/we-are-hiring/', "We're hiring"], ['/contact/', 'Contact']],
  // An old post still links the team page's first address, which redirects once.
  overrides: { '/blog/we-are-hiring/': { links: ['/team/'] } },
  redirects: { '/team/': '/about/team/' },
});

const pollen = makeSite({
  brand: 'Pollen',
  pages: [['/changelog', 'Changelog'], ['/pricing', 'Pricing'], ['/docs', 'Docs'], ['/blog', 'Blog'], ['/blog/pollen-v2', 'Pollen v2'], ['/about', 'About']],
});

const VECTOR_RULES = ['User-agent: *', 'Allow: /', 'Disallow: /api/'];

const MARLIN_PAGES: Array<[string, string]> = [['/features', 'Features'], ['/pricing', 'Pricing'], ['/blog', 'Blog'], ['/blog/marlin-2', 'Marlin 2'], ['/about', 'About'], ['/contact', 'Contact']];

export const CRAWL_SCENARIOS: Scenario[] = [
  {
    id: 'jekyll-post-typo-link',
    framework: 'jekyll',
    description: 'A new post links the plans page as /plan/ instead of /plans/.',
    site: makeSite({
      brand: 'Wrenfield',
      pages: [['/plans/', 'Plans'], ['/about/', 'About'], ['/blog/', 'Blog'], ['/blog/new-pricing/', 'New pricing'], ['/blog/year-in-review/', 'Year in review'], ['/contact/', 'Contact']],
    }),
    regression: { pages: { '/blog/new-pricing/': { links: ['/plan/'] } } },
    expect: { kind: 'broken_link', url: '/plan/' },
    trueChange: modify('_posts/2024-09-10-new-pricing.md', { line: 12, added: ['Compare every tier on the [plans page](/plan/).'] }),
    decoys: [
      modify('_posts/2024-12-20-year-in-review.md', { line: 4, removed: ['image: /assets/img/2024.png'], added: ['image: /assets/img/2024-review.png'] }),
      modify('_sass/_layout.scss', { line: 58, removed: ['  padding: 2rem 0;'], added: ['  padding: 2.5rem 0;'] }),
      modify('Gemfile.lock', { line: 52, removed: ['    jekyll-seo-tag (2.8.0)'], added: ['    jekyll-seo-tag (2.8.1)'] }),
    ],
    consequences: [],
  },
  {
    id: 'sveltekit-partners-deleted',
    framework: 'sveltekit',
    description: 'The partners page was deleted, but the layout\'s navigation and the hand-written sitemap still list it.',
    site: makeSite({
      brand: 'Tidal',
      pages: [['/partners', 'Partners'], ['/pricing', 'Pricing'], ['/about', 'About'], ['/blog', 'Blog'], ['/blog/tidal-summer', 'Tidal summer release'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/partners': null } },
    expect: { kind: 'page_removed', url: '/partners' },
    trueChange: deleteFile('src/routes/partners/+page.svelte', [
      '<script lang="ts">',
      "  import PartnerGrid from '$lib/components/PartnerGrid.svelte';",
      '  export let data;',
      '</script>',
      '',
      '<svelte:head>',
      '  <title>Partners | Tidal</title>',
      '  <meta name="description" content="Agencies and integrators that build with Tidal." />',
      '</svelte:head>',
      '',
      '<h1>Partners</h1>',
      '<PartnerGrid partners={data.partners} />',
    ]),
    decoys: [
      modify('src/routes/about/+page.svelte', { line: 14, removed: ['<p>Tidal was founded in 2019 in Lisbon.</p>'], added: ['<p>Tidal was founded in 2019 in Porto.</p>'] }),
      modify('src/routes/+layout.svelte', { line: 31, removed: ['  <p>© 2024 Tidal</p>'], added: ['  <p>© 2025 Tidal</p>'] }),
      modify('src/app.css', { line: 20, removed: ['  --radius: 6px;'], added: ['  --radius: 8px;'] }),
    ],
    consequences: [
      { kind: 'broken_link', url: '/partners', why: 'the navigation still links the deleted page' },
      { kind: 'page_not_found', url: '/partners', why: 'the check looks at the same page, now 404' },
    ],
  },
  {
    id: 'hugo-team-moved-again',
    framework: 'hugo',
    description: 'The team page moved from /about/team/ to /company/team/ with a Netlify redirect; the older redirect /team/ -> /about/team/ now chains into it.',
    site: quarry,
    regression: {
      pages: { '/about/team/': null },
      add: { '/company/team/': page('Our team', 'Quarry') },
      redirects: { '/about/team/': '/company/team/' },
      nav: swap(quarry.nav, '/about/team/', '/company/team/'),
      sitemaps: { '/sitemap.xml': { urls: swap(quarry.nav, '/about/team/', '/company/team/') } },
    },
    expect: { kind: 'redirect_chain', url: '/team/' },
    trueChange: modify('static/_redirects', { line: 2, added: ['/about/team/  /company/team/  301'] }),
    decoys: [
      rename('content/about/team.md', 'content/company/team.md'),
      modify('content/blog/we-are-hiring.md', { line: 4, added: ['aliases: ["/jobs/"]'] }),
      modify('layouts/partials/nav.html', { line: 7, removed: ['<a href="/about/team/">Team</a>'], added: ['<a href="/company/team/">Team</a>'] }),
    ],
    consequences: [{ kind: 'redirect_added', url: '/about/team/', why: 'the check looks at the moved page, which now redirects' }],
  },
  {
    id: 'nextjs-pages-shop-loop',
    framework: 'nextjs-pages',
    description: 'A rebrand added a `/shop -> /store` redirect in next.config.js; an old redirect sends /store back to /shop.',
    site: makeSite({
      brand: 'Copperline',
      pages: [['/shop', 'Shop'], ['/stores', 'Our stores'], ['/about', 'About'], ['/blog', 'Blog'], ['/blog/summer-collection', 'Summer collection'], ['/contact', 'Contact']],
      redirects: { '/store': '/shop' },
    }),
    regression: { redirects: { '/shop': '/store' } },
    expect: { kind: 'redirect_loop', url: '/shop' },
    trueChange: modify('next.config.js', { line: 14, section: '  async redirects() {', added: ["      { source: '/shop', destination: '/store', permanent: true },"] }),
    decoys: [
      modify('tailwind.config.js', { line: 9, section: '  theme: {', added: ["        copper: '#b87333',"] }),
      modify('pages/account.tsx', {
        line: 31,
        section: 'export const getServerSideProps: GetServerSideProps = async (ctx) => {',
        added: ["  if (!session) return { redirect: { destination: '/login', permanent: false } };"],
      }),
      modify('pages/shop/index.tsx', { line: 12, removed: ['      <h1>Shop</h1>'], added: ['      <h1>Store</h1>'] }),
    ],
    consequences: [
      { kind: 'page_error', url: '/shop', why: 'the check cannot load a page that redirects in a loop' },
      { kind: 'redirect_added', url: '/shop', why: 'the check sees the page redirect now' },
    ],
  },
  {
    id: 'astro-careers-title-copy',
    framework: 'astro',
    description: 'The careers page was created from a copy of the about page and kept its title.',
    site: makeSite({
      brand: 'Juniper',
      pages: [['/about', 'About us'], ['/careers', 'Careers'], ['/pricing', 'Pricing'], ['/blog', 'Blog'], ['/blog/juniper-turns-two', 'Juniper turns two'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/careers': { title: 'About us | Juniper' } } },
    expect: { kind: 'duplicate_title', url: '/careers' },
    trueChange: modify('src/pages/careers.astro', {
      line: 6,
      removed: ['<Layout title="Careers | Juniper" description="Open roles at Juniper.">'],
      added: ['<Layout title="About us | Juniper" description="Open roles at Juniper.">'],
    }),
    decoys: [
      modify('src/pages/pricing.astro', { line: 24, added: ['  <h2>Frequently asked questions</h2>'] }),
      modify('src/layouts/Layout.astro', { line: 12, added: ['    <meta name="theme-color" content="#3b7a57" />'] }),
      modify('src/content/blog/juniper-turns-two.md', { line: 9, removed: ['We started Juniper in a garage in 2022.'], added: ['We started Juniper in a spare room in 2022.'] }),
    ],
    consequences: [{ kind: 'duplicate_title', url: '/about', why: 'the page whose title was copied shares it now' }],
  },
  {
    id: 'nuxt-header-changelog-link',
    framework: 'nuxt',
    description: 'A header redesign dropped the Changelog link, the only link to the page; it is still in the sitemap.',
    site: pollen,
    regression: { nav: pollen.nav.filter((p) => p !== '/changelog') },
    expect: { kind: 'orphan_page', url: '/changelog' },
    trueChange: modify('components/AppHeader.vue', { line: 14, removed: ['        <NuxtLink to="/changelog">Changelog</NuxtLink>'] }),
    decoys: [
      modify('components/PricingCard.vue', { line: 5, removed: ['  <div class="card">'], added: ['  <div class="card card--elevated">'] }),
      modify('content/blog/pollen-v2.md', { line: 11, removed: ['Pollen v2 ships with a new editor.'], added: ['Pollen v2 ships with a brand-new editor.'] }),
      modify('package.json', { line: 12, section: '  "dependencies": {', removed: ['    "nuxt": "^3.11.2",'], added: ['    "nuxt": "^3.12.1",'] }),
    ],
    consequences: [],
  },
  {
    id: 'html-headers-pricing-noindex',
    framework: 'html',
    description: 'A Netlify `_headers` rule meant for an A/B variant of the pricing page sends `X-Robots-Tag: noindex` for /pricing.html itself.',
    site: makeSite({
      brand: 'Saltmarsh',
      pages: [['/pricing.html', 'Pricing'], ['/about.html', 'About'], ['/services.html', 'Services'], ['/faq.html', 'FAQ'], ['/contact.html', 'Contact']],
    }),
    regression: { pages: { '/pricing.html': { headers: { 'X-Robots-Tag': 'noindex' } } } },
    expect: { kind: 'noindex_page', url: '/pricing.html' },
    trueChange: modify('_headers', { line: 5, added: ['/pricing.html', '  X-Robots-Tag: noindex'] }),
    decoys: [
      modify('netlify.toml', { line: 9, added: ['[[headers]]', '  for = "/drafts/*"', '  [headers.values]', '    X-Robots-Tag = "noindex"'] }),
      modify('pricing.html', { line: 52, removed: ['        <p class="price">£24 / month</p>'], added: ['        <p class="price">£26 / month</p>'] }),
      modify('css/styles.css', { line: 140, removed: ['.price { font-size: 2rem; }'], added: ['.price { font-size: 2.25rem; }'] }),
    ],
    consequences: [{ kind: 'noindex_added', url: '/pricing.html', why: 'the check reads the same X-Robots-Tag' }],
  },
  {
    id: 'nextjs-app-monorepo-robots-docs',
    framework: 'nextjs-app',
    description: 'In a Turborepo, the web app\'s app/robots.ts now disallows /docs (meant for /docs/internal); the dashboard app\'s robots.ts changed in the same deploy.',
    site: makeSite({
      brand: 'Vector',
      pages: [['/docs', 'Docs'], ['/pricing', 'Pricing'], ['/blog', 'Blog'], ['/blog/vector-3', 'Vector 3'], ['/about', 'About'], ['/changelog', 'Changelog']],
      robotsRules: VECTOR_RULES,
    }),
    regression: { robotsTxt: robotsTxt([...VECTOR_RULES, 'Disallow: /docs']) },
    expect: { kind: 'blocked_by_robots', url: '/docs' },
    trueChange: modify('apps/web/app/robots.ts', {
      line: 7,
      section: 'export default function robots(): MetadataRoute.Robots {',
      removed: ["      disallow: ['/api/'],"],
      added: ["      disallow: ['/api/', '/docs'],"],
    }),
    decoys: [
      modify('apps/dashboard/app/robots.ts', {
        line: 9,
        section: 'export default function robots(): MetadataRoute.Robots {',
        removed: ["    sitemap: 'https://app.vector.dev/sitemap.xml',"],
        added: ["    sitemap: 'https://dashboard.vector.dev/sitemap.xml',"],
      }),
      modify('apps/web/app/docs/page.tsx', { line: 18, removed: ['      <h2>Guides</h2>'], added: ['      <h2>Getting started</h2>'] }),
      modify('packages/ui/src/Button.tsx', { line: 6, removed: ["  const base = 'rounded-md px-4 py-2';"], added: ["  const base = 'rounded-lg px-4 py-2';"] }),
    ],
    consequences: [{ kind: 'robots_blocked', url: '/docs', why: 'the check reads the same robots.txt rule' }],
  },
  {
    id: 'astro-sitemap-integration-dropped',
    framework: 'astro',
    description: 'An Astro upgrade rewrote the integrations list without `sitemap()`: /sitemap-index.xml, which robots.txt names, is 404.',
    site: makeSite({
      brand: 'Marlin',
      pages: MARLIN_PAGES,
      sitemaps: {
        '/sitemap-index.xml': { index: ['/sitemap-0.xml'] },
        '/sitemap-0.xml': { urls: ['/', ...MARLIN_PAGES.map(([p]) => p)] },
      },
    }),
    regression: { sitemaps: { '/sitemap-index.xml': null, '/sitemap-0.xml': null } },
    expect: { kind: 'sitemap_unreachable', url: '/sitemap-index.xml' },
    trueChange: modify(
      'astro.config.mjs',
      { line: 4, removed: ["import sitemap from '@astrojs/sitemap';"] },
      { line: 9, newLine: 8, section: 'export default defineConfig({', removed: ['  integrations: [mdx(), sitemap()],'], added: ['  integrations: [mdx()],'] },
    ),
    decoys: [
      modify('tsconfig.json', { line: 5, section: '  "compilerOptions": {', added: ['    "paths": { "@components/*": ["src/components/*"] },'] }),
      modify('package.json', { line: 14, section: '  "dependencies": {', removed: ['    "astro": "^4.9.0",'], added: ['    "astro": "^4.10.1",'] }),
      modify('src/pages/blog/[...slug].astro', { line: 18, removed: ['<article class="prose">'], added: ['<article class="prose prose-lg">'] }),
    ],
    consequences: [],
  },
];
