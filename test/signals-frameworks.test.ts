// The SDK's CI diff analysis on real git repositories: for realistic changes in Next.js (app and
// pages routers), Nuxt, Astro, SvelteKit, Hugo, Jekyll, Django/Jinja, Rails and plain HTML sites,
// `changesFromGit` must give exactly these categories and signals (kind, change, line).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { changesFromGit } from '@sitehealth/cli';
import type { Signal } from '@sitehealth/sdk';
import type { AnalyzedChange } from '@sitehealth/sdk/signals';
import { GitRepo, lines } from './support/git-repo.ts';

/** `sig('title', 'r', 8)`: title removed at old line 8; no line for file-level signals. */
function sig(kind: Signal['kind'], change: 'a' | 'r', line?: number): Signal {
  const s: Signal = { kind, change: change === 'a' ? 'added' : 'removed' };
  if (line !== undefined) s.line = line;
  return s;
}

interface Scenario {
  name: string;
  before: Record<string, string>;
  /** Applied on top of `before`; `null` deletes. */
  after: Record<string, string | null>;
  expected: AnalyzedChange[];
}

const repos: GitRepo[] = [];
after(() => {
  for (const r of repos) r.dispose();
});

async function run(s: Scenario): Promise<void> {
  const repo = GitRepo.create();
  repos.push(repo);
  const base = repo.commit('base', s.before);
  const head = repo.commit('change', s.after);
  const result = await changesFromGit({ cwd: repo.dir, base, head });
  assert.deepEqual(result, { changes: s.expected, warnings: [], totalFiles: s.expected.length, baseMissing: false });
}

const scenarios: Scenario[] = [
  // ---------------------------------------------------------------- Next.js, app router
  {
    name: 'Next app router: noindex added to the root layout metadata',
    before: {
      'app/layout.tsx': lines(
        "import type { Metadata } from 'next';",
        "import './globals.css';",
        '',
        'export const metadata: Metadata = {',
        "  title: 'Acme',",
        "  description: 'Acme widgets',",
        '};',
        '',
        'export default function RootLayout({ children }: { children: React.ReactNode }) {',
        '  return (',
        '    <html lang="en">',
        '      <body>{children}</body>',
        '    </html>',
        '  );',
        '}',
      ),
    },
    after: {
      'app/layout.tsx': lines(
        "import type { Metadata } from 'next';",
        "import './globals.css';",
        '',
        'export const metadata: Metadata = {',
        "  title: 'Acme',",
        "  description: 'Acme widgets',",
        '  robots: { index: false, follow: true },',
        '};',
        '',
        'export default function RootLayout({ children }: { children: React.ReactNode }) {',
        '  return (',
        '    <html lang="en">',
        '      <body>{children}</body>',
        '    </html>',
        '  );',
        '}',
      ),
    },
    expected: [{ path: 'app/layout.tsx', category: 'template', signals: [sig('meta_robots', 'a', 7)] }],
  },
  {
    name: 'Next app router: generateMetadata title changed and canonical alternates removed',
    before: {
      'app/blog/[slug]/page.tsx': lines(
        "import type { Metadata } from 'next';",
        "import { notFound } from 'next/navigation';",
        "import { getPost } from '@/lib/posts';",
        '',
        'export async function generateMetadata({ params }: { params: { slug: string } }): Promise<Metadata> {',
        '  const post = await getPost(params.slug);',
        '  return {',
        '    title: post?.title,',
        '    alternates: {',
        '      canonical: `/blog/${params.slug}`,',
        '    },',
        '  };',
        '}',
        '',
        'export default async function Page({ params }: { params: { slug: string } }) {',
        '  const post = await getPost(params.slug);',
        '  if (!post) notFound();',
        '  return <article><h1>{post.title}</h1></article>;',
        '}',
      ),
    },
    after: {
      'app/blog/[slug]/page.tsx': lines(
        "import type { Metadata } from 'next';",
        "import { notFound } from 'next/navigation';",
        "import { getPost } from '@/lib/posts';",
        '',
        'export async function generateMetadata({ params }: { params: { slug: string } }): Promise<Metadata> {',
        '  const post = await getPost(params.slug);',
        '  return {',
        "    title: post ? `${post.title} | Acme` : 'Acme',",
        '  };',
        '}',
        '',
        'export default async function Page({ params }: { params: { slug: string } }) {',
        '  const post = await getPost(params.slug);',
        '  if (!post) notFound();',
        '  return <article><h1>{post.title}</h1></article>;',
        '}',
      ),
    },
    expected: [{
      path: 'app/blog/[slug]/page.tsx',
      category: 'page',
      signals: [sig('title', 'r', 8), sig('title', 'a', 8), sig('canonical', 'r', 10)],
    }],
  },
  {
    name: 'Next config: a redirect and an X-Robots-Tag header added',
    before: {
      'next.config.js': lines(
        "/** @type {import('next').NextConfig} */",
        'const nextConfig = {',
        '  reactStrictMode: true,',
        '};',
        '',
        'module.exports = nextConfig;',
      ),
    },
    after: {
      'next.config.js': lines(
        "/** @type {import('next').NextConfig} */",
        'const nextConfig = {',
        '  reactStrictMode: true,',
        '  async redirects() {',
        '    return [',
        "      { source: '/old-blog/:slug', destination: '/blog/:slug', permanent: true },",
        '    ];',
        '  },',
        '  async headers() {',
        '    return [',
        '      {',
        "        source: '/drafts/:path*',",
        "        headers: [{ key: 'X-Robots-Tag', value: 'noindex' }],",
        '      },',
        '    ];',
        '  },',
        '};',
        '',
        'module.exports = nextConfig;',
      ),
    },
    expected: [{ path: 'next.config.js', category: 'config', signals: [sig('redirect', 'a', 6), sig('x_robots_tag', 'a', 13)] }],
  },
  {
    name: 'Next config: one destination edited inside an existing redirects() (context from the hunk header)',
    before: {
      'next.config.mjs': lines(
        'export default {',
        '  async redirects() {',
        '    return [',
        '      {',
        "        source: '/docs/:path*',",
        "        destination: '/help/:path*',",
        '        permanent: true,',
        '      },',
        '    ];',
        '  },',
        '};',
      ),
    },
    after: {
      'next.config.mjs': lines(
        'export default {',
        '  async redirects() {',
        '    return [',
        '      {',
        "        source: '/docs/:path*',",
        "        destination: '/support/:path*',",
        '        permanent: true,',
        '      },',
        '    ];',
        '  },',
        '};',
      ),
    },
    expected: [{ path: 'next.config.mjs', category: 'config', signals: [sig('redirect', 'r', 6), sig('redirect', 'a', 6)] }],
  },
  {
    name: 'Next middleware: a redirect becomes a rewrite',
    before: {
      'middleware.ts': lines(
        "import { NextResponse } from 'next/server';",
        "import type { NextRequest } from 'next/server';",
        '',
        'export function middleware(request: NextRequest) {',
        "  if (request.nextUrl.pathname.startsWith('/old')) {",
        "    return NextResponse.redirect(new URL('/new', request.url));",
        '  }',
        '  return NextResponse.next();',
        '}',
      ),
    },
    after: {
      'middleware.ts': lines(
        "import { NextResponse } from 'next/server';",
        "import type { NextRequest } from 'next/server';",
        '',
        'export function middleware(request: NextRequest) {',
        "  if (request.nextUrl.pathname.startsWith('/old')) {",
        "    return NextResponse.rewrite(new URL('/new', request.url));",
        '  }',
        '  return NextResponse.next();',
        '}',
      ),
    },
    expected: [{ path: 'middleware.ts', category: 'routing', signals: [sig('redirect', 'r', 6), sig('route', 'a', 6)] }],
  },
  // ---------------------------------------------------------------- Next.js, pages router
  {
    name: 'Next pages router: notFound added to getStaticProps, <Head> title changed',
    before: {
      'pages/blog/[slug].tsx': lines(
        "import Head from 'next/head';",
        '',
        'export async function getStaticProps({ params }) {',
        '  const post = await loadPost(params.slug);',
        '  return { props: { post }, revalidate: 60 };',
        '}',
        '',
        'export default function Post({ post }) {',
        '  return (',
        '    <>',
        '      <Head>',
        '        <title>{post.title}</title>',
        '      </Head>',
        '      <h1>{post.title}</h1>',
        '    </>',
        '  );',
        '}',
      ),
    },
    after: {
      'pages/blog/[slug].tsx': lines(
        "import Head from 'next/head';",
        '',
        'export async function getStaticProps({ params }) {',
        '  const post = await loadPost(params.slug);',
        '  if (!post) return { notFound: true };',
        '  return { props: { post }, revalidate: 60 };',
        '}',
        '',
        'export default function Post({ post }) {',
        '  return (',
        '    <>',
        '      <Head>',
        '        <title>{`${post.title} – Blog`}</title>',
        '      </Head>',
        '      <h1>{post.title}</h1>',
        '    </>',
        '  );',
        '}',
      ),
    },
    expected: [{
      path: 'pages/blog/[slug].tsx',
      category: 'page',
      signals: [sig('status_code', 'a', 5), sig('title', 'r', 12), sig('title', 'a', 13)],
    }],
  },
  {
    name: 'Next pages router: a page added and an old one deleted, env read in the new page',
    before: {
      'pages/pricing-2023.tsx': lines('export default function Pricing() {', '  return <h1>Pricing 2023</h1>;', '}'),
      '.env.production': lines('NEXT_PUBLIC_SITE_URL=https://acme.dev'),
    },
    after: {
      'pages/pricing-2023.tsx': null,
      'pages/pricing.tsx': lines(
        'const site = process.env.NEXT_PUBLIC_SITE_URL;',
        "const plans = ['Starter', 'Team', 'Enterprise'];",
        'export default function PricingPage() {',
        '  return (',
        '    <main>',
        '      <h1>Plans and prices</h1>',
        '      <ul>{plans.map((p) => <li key={p}>{p}</li>)}</ul>',
        '    </main>',
        '  );',
        '}',
      ),
      '.env.production': lines('NEXT_PUBLIC_SITE_URL=https://acme.dev', 'NEXT_PUBLIC_NOINDEX=true'),
    },
    expected: [
      { path: '.env.production', category: 'config', signals: [sig('env', 'a', 2)] },
      { path: 'pages/pricing-2023.tsx', category: 'page', signals: [sig('route', 'r'), sig('heading', 'r', 2)] },
      { path: 'pages/pricing.tsx', category: 'page', signals: [sig('route', 'a'), sig('env', 'a', 1), sig('heading', 'a', 6)] },
    ],
  },
  // ---------------------------------------------------------------- Nuxt
  {
    name: 'Nuxt page: useSeoMeta description replaced by robots noindex',
    before: {
      'pages/index.vue': lines(
        '<script setup lang="ts">',
        'useSeoMeta({',
        "  title: 'Acme',",
        "  description: 'Widgets for everyone',",
        '})',
        '</script>',
        '',
        '<template>',
        '  <main>',
        '    <h1>Acme</h1>',
        '    <NuxtLink to="/about">About</NuxtLink>',
        '  </main>',
        '</template>',
      ),
    },
    after: {
      'pages/index.vue': lines(
        '<script setup lang="ts">',
        'useSeoMeta({',
        "  title: 'Acme',",
        "  robots: 'noindex, nofollow',",
        '})',
        '</script>',
        '',
        '<template>',
        '  <main>',
        '    <h1>Acme</h1>',
        '    <NuxtLink to="/about">About</NuxtLink>',
        '  </main>',
        '</template>',
      ),
    },
    expected: [{ path: 'pages/index.vue', category: 'page', signals: [sig('meta_description', 'r', 4), sig('meta_robots', 'a', 4)] }],
  },
  {
    name: 'Nuxt config: app.head title changed and a routeRules redirect added',
    before: {
      'nuxt.config.ts': lines(
        'export default defineNuxtConfig({',
        '  app: {',
        '    head: {',
        "      title: 'Acme',",
        '    },',
        '  },',
        '  routeRules: {',
        "    '/blog/**': { isr: 60 },",
        '  },',
        '})',
      ),
    },
    after: {
      'nuxt.config.ts': lines(
        'export default defineNuxtConfig({',
        '  app: {',
        '    head: {',
        "      title: 'Acme Store',",
        '    },',
        '  },',
        '  routeRules: {',
        "    '/blog/**': { isr: 60 },",
        "    '/old-shop': { redirect: '/shop' },",
        '  },',
        '})',
      ),
    },
    expected: [{ path: 'nuxt.config.ts', category: 'config', signals: [sig('title', 'r', 4), sig('title', 'a', 4), sig('redirect', 'a', 9)] }],
  },
  {
    name: 'Nuxt server route: 404 becomes 410',
    before: {
      'server/api/product/[id].get.ts': lines(
        'export default defineEventHandler(async (event) => {',
        "  const product = await findProduct(getRouterParam(event, 'id'));",
        '  if (!product) {',
        "    throw createError({ statusCode: 404, statusMessage: 'Not found' });",
        '  }',
        '  return product;',
        '})',
      ),
    },
    after: {
      'server/api/product/[id].get.ts': lines(
        'export default defineEventHandler(async (event) => {',
        "  const product = await findProduct(getRouterParam(event, 'id'));",
        '  if (!product) {',
        "    throw createError({ statusCode: 410, statusMessage: 'Gone' });",
        '  }',
        '  return product;',
        '})',
      ),
    },
    expected: [{ path: 'server/api/product/[id].get.ts', category: 'server', signals: [sig('status_code', 'r', 4), sig('status_code', 'a', 4)] }],
  },
  // ---------------------------------------------------------------- Astro
  {
    name: 'Astro layout: canonical removed',
    before: {
      'src/layouts/BaseLayout.astro': lines(
        '---',
        'const { title, description } = Astro.props;',
        'const canonicalURL = new URL(Astro.url.pathname, Astro.site);',
        '---',
        '<html lang="en">',
        '  <head>',
        '    <meta charset="utf-8" />',
        '    <title>{title}</title>',
        '    <meta name="description" content={description} />',
        '    <link rel="canonical" href={canonicalURL} />',
        '  </head>',
        '  <body>',
        '    <slot />',
        '  </body>',
        '</html>',
      ),
    },
    after: {
      'src/layouts/BaseLayout.astro': lines(
        '---',
        'const { title, description } = Astro.props;',
        '---',
        '<html lang="en">',
        '  <head>',
        '    <meta charset="utf-8" />',
        '    <title>{title}</title>',
        '    <meta name="description" content={description} />',
        '  </head>',
        '  <body>',
        '    <slot />',
        '  </body>',
        '</html>',
      ),
    },
    expected: [{ path: 'src/layouts/BaseLayout.astro', category: 'template', signals: [sig('canonical', 'r', 3), sig('canonical', 'r', 10)] }],
  },
  {
    name: 'Astro page: layout title prop changed, hero image made lazy',
    before: {
      'src/pages/index.astro': lines(
        '---',
        "import BaseLayout from '../layouts/BaseLayout.astro';",
        "import hero from '../assets/hero.jpg';",
        '---',
        '<BaseLayout title="Home" description="Welcome to Acme">',
        '  <img src={hero.src} alt="Hero" width="1200" height="600" />',
        '  <h1>Welcome</h1>',
        '</BaseLayout>',
      ),
    },
    after: {
      'src/pages/index.astro': lines(
        '---',
        "import BaseLayout from '../layouts/BaseLayout.astro';",
        "import hero from '../assets/hero.jpg';",
        '---',
        '<BaseLayout title="Acme – Home" description="Welcome to Acme">',
        '  <img src={hero.src} alt="Hero" width="1200" height="600" loading="lazy" />',
        '  <h1>Welcome</h1>',
        '</BaseLayout>',
      ),
    },
    expected: [{
      path: 'src/pages/index.astro',
      category: 'page',
      signals: [
        sig('title', 'r', 5), sig('meta_description', 'r', 5), sig('title', 'a', 5), sig('meta_description', 'a', 5),
        sig('image', 'r', 6), sig('lazy_loading', 'a', 6), sig('image', 'a', 6),
      ],
    }],
  },
  {
    name: 'Astro config: sitemap integration removed, redirects added',
    before: {
      'astro.config.mjs': lines(
        "import { defineConfig } from 'astro/config';",
        "import sitemap from '@astrojs/sitemap';",
        '',
        'export default defineConfig({',
        "  site: 'https://acme.dev',",
        '  integrations: [sitemap()],',
        '});',
      ),
    },
    after: {
      'astro.config.mjs': lines(
        "import { defineConfig } from 'astro/config';",
        "import sitemap from '@astrojs/sitemap';",
        '',
        'export default defineConfig({',
        "  site: 'https://acme.dev',",
        '  integrations: [],',
        '  redirects: {',
        "    '/old': '/new',",
        '  },',
        '});',
      ),
    },
    expected: [{ path: 'astro.config.mjs', category: 'config', signals: [sig('sitemap_entry', 'r', 6), sig('redirect', 'a', 8)] }],
  },
  // ---------------------------------------------------------------- SvelteKit
  {
    name: 'SvelteKit page: meta description removed from <svelte:head>',
    before: {
      'src/routes/blog/[slug]/+page.svelte': lines(
        '<script lang="ts">',
        '  export let data;',
        '</script>',
        '',
        '<svelte:head>',
        '  <title>{data.post.title}</title>',
        '  <meta name="description" content={data.post.summary} />',
        '</svelte:head>',
        '',
        '<h1>{data.post.title}</h1>',
      ),
    },
    after: {
      'src/routes/blog/[slug]/+page.svelte': lines(
        '<script lang="ts">',
        '  export let data;',
        '</script>',
        '',
        '<svelte:head>',
        '  <title>{data.post.title}</title>',
        '</svelte:head>',
        '',
        '<h1>{data.post.title}</h1>',
      ),
    },
    expected: [{ path: 'src/routes/blog/[slug]/+page.svelte', category: 'page', signals: [sig('meta_description', 'r', 7)] }],
  },
  {
    name: 'SvelteKit load: a 404 error becomes a 301 redirect',
    before: {
      'src/routes/blog/[slug]/+page.server.ts': lines(
        "import { error } from '@sveltejs/kit';",
        '',
        'export async function load({ params }) {',
        '  const post = await getPost(params.slug);',
        "  if (!post) throw error(404, 'Not found');",
        '  return { post };',
        '}',
      ),
    },
    after: {
      'src/routes/blog/[slug]/+page.server.ts': lines(
        "import { error, redirect } from '@sveltejs/kit';",
        '',
        'export async function load({ params }) {',
        '  const post = await getPost(params.slug);',
        "  if (!post) throw redirect(301, '/blog');",
        '  return { post };',
        '}',
      ),
    },
    expected: [{ path: 'src/routes/blog/[slug]/+page.server.ts', category: 'page', signals: [sig('status_code', 'r', 5), sig('redirect', 'a', 5)] }],
  },
  {
    name: 'SvelteKit: X-Robots-Tag set in hooks.server.ts, a new route added',
    before: {
      'src/hooks.server.ts': lines(
        'export async function handle({ event, resolve }) {',
        '  const response = await resolve(event);',
        '  return response;',
        '}',
      ),
    },
    after: {
      'src/hooks.server.ts': lines(
        'export async function handle({ event, resolve }) {',
        '  const response = await resolve(event);',
        "  if (event.url.hostname.startsWith('staging.')) response.headers.set('X-Robots-Tag', 'noindex');",
        '  return response;',
        '}',
      ),
      'src/routes/pricing/+page.svelte': lines('<svelte:head>', '  <title>Pricing</title>', '</svelte:head>', '<h1>Pricing</h1>'),
    },
    expected: [
      { path: 'src/hooks.server.ts', category: 'routing', signals: [sig('x_robots_tag', 'a', 3)] },
      { path: 'src/routes/pricing/+page.svelte', category: 'page', signals: [sig('route', 'a'), sig('title', 'a', 2), sig('heading', 'a', 4)] },
    ],
  },
  // ---------------------------------------------------------------- Hugo
  {
    name: 'Hugo partial: hreflang alternates removed',
    before: {
      'layouts/partials/head.html': lines(
        '<meta charset="utf-8">',
        '<title>{{ .Title }} | {{ .Site.Title }}</title>',
        '<link rel="canonical" href="{{ .Permalink }}">',
        '{{ range .AllTranslations }}',
        '<link rel="alternate" hreflang="{{ .Lang }}" href="{{ .Permalink }}">',
        '{{ end }}',
      ),
    },
    after: {
      'layouts/partials/head.html': lines(
        '<meta charset="utf-8">',
        '<title>{{ .Title }} | {{ .Site.Title }}</title>',
        '<link rel="canonical" href="{{ .Permalink }}">',
      ),
    },
    expected: [{ path: 'layouts/partials/head.html', category: 'template', signals: [sig('hreflang', 'r', 5)] }],
  },
  {
    name: 'Hugo content: front matter title changed, a heading removed',
    before: {
      'content/posts/launch.md': lines(
        '---',
        'title: "We launched"',
        'date: 2024-01-10',
        'draft: false',
        '---',
        '',
        'Intro paragraph.',
        '',
        '## What is new',
        '',
        'More text with a [link](/features).',
      ),
    },
    after: {
      'content/posts/launch.md': lines(
        '---',
        'title: "We launched v2"',
        'date: 2024-01-10',
        'draft: false',
        '---',
        '',
        'Intro paragraph.',
        '',
        'More text with a [link](/features).',
      ),
    },
    expected: [{ path: 'content/posts/launch.md', category: 'content', signals: [sig('title', 'r', 2), sig('title', 'a', 2), sig('heading', 'r', 9)] }],
  },
  {
    name: 'Hugo config: baseURL changed, sitemap disabled',
    before: {
      'hugo.toml': lines('baseURL = "https://acme.dev/"', 'languageCode = "en-us"', 'title = "Acme"', '', '[sitemap]', '  changefreq = "weekly"'),
    },
    after: {
      'hugo.toml': lines(
        'baseURL = "https://www.acme.dev/"', 'languageCode = "en-us"', 'title = "Acme"', 'disableKinds = ["sitemap", "RSS"]', '',
        '[sitemap]', '  changefreq = "weekly"',
      ),
    },
    expected: [{
      path: 'hugo.toml',
      category: 'config',
      signals: [sig('canonical', 'r', 1), sig('canonical', 'a', 1), sig('route', 'a', 4), sig('sitemap_entry', 'a', 4)],
    }],
  },
  // ---------------------------------------------------------------- Jekyll
  {
    name: 'Jekyll: {% seo %} removed from the head include, jekyll-sitemap plugin dropped',
    before: {
      '_includes/head.html': lines(
        '<meta charset="utf-8">',
        '{% seo %}',
        '<link rel="stylesheet" href="{{ \'/assets/main.css\' | relative_url }}">',
      ),
      '_config.yml': lines('title: Acme Blog', 'url: "https://acme.dev"', 'plugins:', '  - jekyll-feed', '  - jekyll-sitemap'),
    },
    after: {
      '_includes/head.html': lines('<meta charset="utf-8">', '<link rel="stylesheet" href="{{ \'/assets/main.css\' | relative_url }}">'),
      '_config.yml': lines('title: Acme Blog', 'url: "https://acme.dev"', 'plugins:', '  - jekyll-feed'),
    },
    expected: [
      { path: '_config.yml', category: 'config', signals: [sig('sitemap_entry', 'r', 5)] },
      {
        path: '_includes/head.html',
        category: 'template',
        signals: [sig('canonical', 'r', 2), sig('title', 'r', 2), sig('meta_description', 'r', 2), sig('structured_data', 'r', 2)],
      },
    ],
  },
  {
    name: 'Jekyll: a new post with redirect_from and an image',
    before: { '_config.yml': lines('title: Acme Blog') },
    after: {
      '_posts/2024-05-01-new-pricing.md': lines(
        '---',
        'layout: post',
        'title: New pricing',
        'redirect_from:',
        '  - /pricing-2023/',
        '---',
        '',
        '![Pricing table](/assets/pricing.png)',
      ),
    },
    expected: [{
      path: '_posts/2024-05-01-new-pricing.md',
      category: 'content',
      signals: [sig('route', 'a'), sig('title', 'a', 3), sig('redirect', 'a', 4), sig('image', 'a', 8)],
    }],
  },
  // ---------------------------------------------------------------- Django / Jinja
  {
    name: 'Django template: JSON-LD removed',
    before: {
      'shop/templates/shop/product.html': lines(
        '{% extends "base.html" %}',
        '{% block title %}{{ product.name }} | Acme{% endblock %}',
        '{% block content %}',
        '<h1>{{ product.name }}</h1>',
        '<script type="application/ld+json">',
        '{"@context": "https://schema.org", "@type": "Product", "name": "{{ product.name }}"}',
        '</script>',
        '{% endblock %}',
      ),
    },
    after: {
      'shop/templates/shop/product.html': lines(
        '{% extends "base.html" %}',
        '{% block title %}{{ product.name }} | Acme{% endblock %}',
        '{% block content %}',
        '<h1>{{ product.name }}</h1>',
        '{% endblock %}',
      ),
    },
    expected: [{ path: 'shop/templates/shop/product.html', category: 'template', signals: [sig('structured_data', 'r', 5)] }],
  },
  {
    name: 'Django: a route replaced by a RedirectView, Http404 replaced by 410 Gone',
    before: {
      'shop/urls.py': lines(
        'from django.urls import path',
        'from . import views',
        '',
        'urlpatterns = [',
        '    path("", views.index, name="index"),',
        '    path("products/<slug:slug>/", views.product, name="product"),',
        '    path("sale/", views.sale, name="sale"),',
        ']',
      ),
      'shop/views.py': lines(
        'from django.http import Http404',
        'from django.shortcuts import render',
        '',
        'def product(request, slug):',
        '    product = Product.objects.filter(slug=slug).first()',
        '    if product is None:',
        '        raise Http404("No such product")',
        '    return render(request, "shop/product.html", {"product": product})',
      ),
    },
    after: {
      'shop/urls.py': lines(
        'from django.urls import path',
        'from django.views.generic import RedirectView',
        'from . import views',
        '',
        'urlpatterns = [',
        '    path("", views.index, name="index"),',
        '    path("products/<slug:slug>/", views.product, name="product"),',
        '    path("sale/", RedirectView.as_view(url="/products/", permanent=True)),',
        ']',
      ),
      'shop/views.py': lines(
        'from django.http import Http404, HttpResponseGone',
        'from django.shortcuts import render',
        '',
        'def product(request, slug):',
        '    product = Product.objects.filter(slug=slug).first()',
        '    if product is None:',
        '        return HttpResponseGone()',
        '    return render(request, "shop/product.html", {"product": product})',
      ),
    },
    expected: [
      { path: 'shop/urls.py', category: 'routing', signals: [sig('route', 'r', 7), sig('redirect', 'a', 8)] },
      { path: 'shop/views.py', category: 'server', signals: [sig('status_code', 'r', 7), sig('status_code', 'a', 7)] },
    ],
  },
  // ---------------------------------------------------------------- Rails
  {
    name: 'Rails: a route removed from config/routes.rb',
    before: {
      'config/routes.rb': lines(
        'Rails.application.routes.draw do',
        '  root "pages#home"',
        '  resources :posts, only: [:index, :show]',
        '  get "/pricing", to: "pages#pricing"',
        'end',
      ),
    },
    after: {
      'config/routes.rb': lines('Rails.application.routes.draw do', '  root "pages#home"', '  resources :posts, only: [:index, :show]', 'end'),
    },
    expected: [{ path: 'config/routes.rb', category: 'routing', signals: [sig('route', 'r', 4)] }],
  },
  {
    name: 'Rails: ERB title changed, noindex added to the layout for staging',
    before: {
      'app/views/posts/show.html.erb': lines(
        '<% content_for :title, @post.title %>',
        '<article>',
        '  <h1><%= @post.title %></h1>',
        '  <%= image_tag @post.cover_url, alt: @post.title %>',
        '</article>',
      ),
      'app/views/layouts/application.html.erb': lines(
        '<!DOCTYPE html>',
        '<html>',
        '  <head>',
        '    <title><%= content_for?(:title) ? yield(:title) : "Acme" %></title>',
        '    <%= csrf_meta_tags %>',
        '    <%= stylesheet_link_tag "application", "data-turbo-track": "reload" %>',
        '  </head>',
      ),
    },
    after: {
      'app/views/posts/show.html.erb': lines(
        '<% content_for :title, "#{@post.title} | Acme Blog" %>',
        '<article>',
        '  <h1><%= @post.title %></h1>',
        '  <%= image_tag @post.cover_url, alt: @post.title %>',
        '</article>',
      ),
      'app/views/layouts/application.html.erb': lines(
        '<!DOCTYPE html>',
        '<html>',
        '  <head>',
        '    <title><%= content_for?(:title) ? yield(:title) : "Acme" %></title>',
        '    <% if Rails.env.staging? %><meta name="robots" content="noindex"><% end %>',
        '    <%= csrf_meta_tags %>',
        '    <%= stylesheet_link_tag "application", "data-turbo-track": "reload" %>',
        '  </head>',
      ),
    },
    expected: [
      { path: 'app/views/layouts/application.html.erb', category: 'template', signals: [sig('meta_robots', 'a', 5)] },
      { path: 'app/views/posts/show.html.erb', category: 'page', signals: [sig('title', 'r', 1), sig('title', 'a', 1)] },
    ],
  },
  {
    name: 'Rails controller: head :not_found becomes a permanent redirect',
    before: {
      'app/controllers/posts_controller.rb': lines(
        'class PostsController < ApplicationController',
        '  def show',
        '    @post = Post.find_by(slug: params[:id])',
        '    head :not_found unless @post',
        '  end',
        'end',
      ),
    },
    after: {
      'app/controllers/posts_controller.rb': lines(
        'class PostsController < ApplicationController',
        '  def show',
        '    @post = Post.find_by(slug: params[:id])',
        '    redirect_to posts_path, status: :moved_permanently unless @post',
        '  end',
        'end',
      ),
    },
    expected: [{ path: 'app/controllers/posts_controller.rb', category: 'server', signals: [sig('status_code', 'r', 4), sig('redirect', 'a', 4)] }],
  },
  // ---------------------------------------------------------------- plain HTML and hosting files
  {
    name: 'Plain HTML: loading="lazy" added to an image',
    before: {
      'index.html': lines(
        '<!doctype html>',
        '<html lang="en">',
        '<head>',
        '  <meta charset="utf-8">',
        '  <title>Acme – Widgets</title>',
        '  <link rel="stylesheet" href="/css/site.css">',
        '</head>',
        '<body>',
        '  <h1>Widgets</h1>',
        '  <img src="/img/widget.jpg" alt="A widget">',
        '  <a href="/about.html">About</a>',
        '</body>',
        '</html>',
      ),
    },
    after: {
      'index.html': lines(
        '<!doctype html>',
        '<html lang="en">',
        '<head>',
        '  <meta charset="utf-8">',
        '  <title>Acme – Widgets</title>',
        '  <link rel="stylesheet" href="/css/site.css">',
        '</head>',
        '<body>',
        '  <h1>Widgets</h1>',
        '  <img src="/img/widget.jpg" alt="A widget" loading="lazy">',
        '  <a href="/about.html">About</a>',
        '</body>',
        '</html>',
      ),
    },
    expected: [{ path: 'index.html', category: 'page', signals: [sig('image', 'r', 10), sig('lazy_loading', 'a', 10), sig('image', 'a', 10)] }],
  },
  {
    name: 'Plain HTML: a page removed, a stylesheet and a script swapped, a link dropped',
    before: {
      'about.html': lines('<html><head><title>About</title></head>', '<body><h1>About us</h1></body></html>'),
      'contact.html': lines(
        '<link rel="stylesheet" href="/css/old.css">',
        '<script src="/js/app.js" defer></script>',
        '<a href="/about.html">About</a>',
      ),
    },
    after: {
      'about.html': null,
      'contact.html': lines('<link rel="stylesheet" href="/css/new.css">', '<script src="/js/app.js" defer></script>'),
    },
    expected: [
      { path: 'about.html', category: 'page', signals: [sig('route', 'r'), sig('title', 'r', 1), sig('heading', 'r', 2)] },
      { path: 'contact.html', category: 'page', signals: [sig('stylesheet', 'r', 1), sig('stylesheet', 'a', 1), sig('link', 'r', 3)] },
    ],
  },
  {
    name: 'Netlify _redirects: a redirect and a rewrite added',
    before: { 'public/_redirects': lines('/home / 301') },
    after: { 'public/_redirects': lines('/home / 301', '/blog/* /news/:splat 301', '/api/* /.netlify/functions/:splat 200') },
    expected: [{ path: 'public/_redirects', category: 'redirects', signals: [sig('redirect', 'a', 2), sig('route', 'a', 3)] }],
  },
  {
    name: 'robots.txt: Disallow: /blog added',
    before: { 'public/robots.txt': lines('User-agent: *', 'Allow: /', '', 'Sitemap: https://acme.dev/sitemap.xml') },
    after: { 'public/robots.txt': lines('User-agent: *', 'Allow: /', 'Disallow: /blog', '', 'Sitemap: https://acme.dev/sitemap.xml') },
    expected: [{ path: 'public/robots.txt', category: 'robots', signals: [sig('robots_rule', 'a', 3)] }],
  },
  {
    name: 'sitemap.xml: two entries removed',
    before: {
      'public/sitemap.xml': lines(
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
        '  <url>',
        '    <loc>https://acme.dev/</loc>',
        '  </url>',
        '  <url>',
        '    <loc>https://acme.dev/blog/</loc>',
        '    <lastmod>2024-05-01</lastmod>',
        '  </url>',
        '  <url><loc>https://acme.dev/about/</loc></url>',
        '</urlset>',
      ),
    },
    after: {
      'public/sitemap.xml': lines(
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
        '  <url>',
        '    <loc>https://acme.dev/</loc>',
        '  </url>',
        '</urlset>',
      ),
    },
    expected: [{ path: 'public/sitemap.xml', category: 'sitemap', signals: [sig('sitemap_entry', 'r', 7), sig('sitemap_entry', 'r', 10)] }],
  },
  {
    name: 'netlify.toml: X-Robots-Tag added to an existing [[headers]] block, a [[redirects]] block added',
    before: {
      'netlify.toml': lines(
        '[build]',
        '  command = "npm run build"',
        '  publish = "dist"',
        '',
        '[[headers]]',
        '  for = "/*"',
        '  [headers.values]',
        '    X-Frame-Options = "DENY"',
      ),
    },
    after: {
      'netlify.toml': lines(
        '[build]',
        '  command = "npm run build"',
        '  publish = "dist"',
        '',
        '[[headers]]',
        '  for = "/*"',
        '  [headers.values]',
        '    X-Frame-Options = "DENY"',
        '    X-Robots-Tag = "noindex"',
        '',
        '[[redirects]]',
        '  from = "/old"',
        '  to = "/new"',
      ),
    },
    expected: [{ path: 'netlify.toml', category: 'config', signals: [sig('x_robots_tag', 'a', 9), sig('redirect', 'a', 11)] }],
  },
  {
    name: 'vercel.json: one redirect entry removed from an existing list',
    before: {
      'vercel.json': lines(
        '{',
        '  "cleanUrls": true,',
        '  "redirects": [',
        '    { "source": "/a", "destination": "/b", "permanent": true },',
        '    { "source": "/c", "destination": "/d", "permanent": false }',
        '  ]',
        '}',
      ),
    },
    after: {
      'vercel.json': lines(
        '{',
        '  "cleanUrls": true,',
        '  "redirects": [',
        '    { "source": "/a", "destination": "/b", "permanent": true }',
        '  ]',
        '}',
      ),
    },
    expected: [{ path: 'vercel.json', category: 'config', signals: [sig('redirect', 'r', 4), sig('redirect', 'a', 4), sig('redirect', 'r', 5)] }],
  },
  {
    name: 'package.json: a dependency bumped (scripts and version edits are not dependencies)',
    before: {
      'package.json': lines(
        '{',
        '  "name": "acme-site",',
        '  "version": "1.0.0",',
        '  "scripts": {',
        '    "build": "next build"',
        '  },',
        '  "dependencies": {',
        '    "next": "14.1.0",',
        '    "react": "18.2.0"',
        '  }',
        '}',
      ),
    },
    after: {
      'package.json': lines(
        '{',
        '  "name": "acme-site",',
        '  "version": "1.0.1",',
        '  "scripts": {',
        '    "build": "next build --debug"',
        '  },',
        '  "dependencies": {',
        '    "next": "14.2.3",',
        '    "react": "18.2.0"',
        '  }',
        '}',
      ),
    },
    expected: [{ path: 'package.json', category: 'dependencies', signals: [sig('dependency', 'r', 8), sig('dependency', 'a', 8)] }],
  },
  {
    name: 'Express server: a status code changed, Gemfile and requirements bumped',
    before: {
      'server/index.js': lines("app.get('/legacy', (req, res) => {", "  res.status(404).send('Not found');", '});'),
      'Gemfile': lines("source 'https://rubygems.org'", "gem 'rails', '~> 7.0'"),
      'requirements.txt': lines('# web', 'Django==4.2.1', 'gunicorn'),
    },
    after: {
      'server/index.js': lines("app.get('/legacy', (req, res) => {", "  res.status(410).send('Gone');", '});'),
      'Gemfile': lines("source 'https://rubygems.org'", "gem 'rails', '~> 7.1'"),
      'requirements.txt': lines('# web', 'Django==5.0.6', 'gunicorn'),
    },
    expected: [
      { path: 'Gemfile', category: 'dependencies', signals: [sig('dependency', 'r', 2), sig('dependency', 'a', 2)] },
      { path: 'requirements.txt', category: 'dependencies', signals: [sig('dependency', 'r', 2), sig('dependency', 'a', 2)] },
      { path: 'server/index.js', category: 'server', signals: [sig('status_code', 'r', 2), sig('status_code', 'a', 2)] },
    ],
  },
];

describe('changesFromGit: categories and signals of realistic site changes', () => {
  it('covers at least 25 scenarios', () => {
    assert.ok(scenarios.length >= 25, `${scenarios.length} scenarios`);
  });
  for (const s of scenarios) it(s.name, () => run(s));
});
