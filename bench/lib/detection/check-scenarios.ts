// Corpus scenarios whose expected finding is a site-check kind (`findings` of the deploy): at
// least one per kind. See bench/lib/detection-corpus.ts for the shape of an entry.

import type { Scenario } from '../detection-corpus.ts';
import { addFile, modify, rename } from './changes.ts';
import { inlineImage, makeSite, page, robotsTxt, swap } from './site.ts';

const orbit = makeSite({
  brand: 'Orbit',
  pages: [['/pricing', 'Pricing'], ['/features', 'Features'], ['/blog', 'Blog'], ['/blog/launch-week', 'Launch week'], ['/about', 'About'], ['/contact', 'Contact']],
});

const fernhill = makeSite({
  brand: 'Fernhill',
  pages: [['/about/', 'About'], ['/services/', 'Services'], ['/careers/', 'Careers'], ['/blog/', 'Journal'], ['/blog/spring-update/', 'Spring update'], ['/contact/', 'Contact']],
});

const gantry = makeSite({
  brand: 'Gantry',
  pages: [['/pricing', 'Pricing'], ['/features', 'Features'], ['/about', 'About'], ['/blog', 'Blog'], ['/blog/gantry-3', 'Gantry 3'], ['/contact', 'Contact']],
});

const RESOURCE_LINKS: Array<[href: string, text: string]> = [
  ['/events.html#calendar', 'Events calendar'],
  ['/events.html#workshops', 'Workshops'],
  ['/events.html#story-time', 'Story time'],
  ['/visit.html#hours', 'Opening hours'],
  ['/visit.html#parking', 'Parking'],
  ['/visit.html#accessibility', 'Accessibility'],
  ['/membership.html#fees', 'Membership fees'],
  ['/membership.html#renew', 'Renew online'],
  ['/faq.html#borrowing', 'Borrowing rules'],
  ['/faq.html#wifi', 'Wi-Fi access'],
  ['/about.html#history', 'Our history'],
  ['/contact.html#staff', 'Staff directory'],
];

export const CHECK_SCENARIOS: Scenario[] = [
  {
    id: 'nextjs-app-pricing-500',
    framework: 'nextjs-app',
    description: 'The pricing page (a server component) fetches its plans from the billing API; the deploy renamed the environment variable it reads, so it throws and /pricing answers 500.',
    site: makeSite({
      brand: 'Lumen',
      pages: [['/pricing', 'Pricing'], ['/features', 'Features'], ['/customers', 'Customers'], ['/blog', 'Blog'], ['/blog/hello-lumen', 'Hello, Lumen'], ['/about', 'About us'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/pricing': { status: 500 } } },
    expect: { kind: 'page_error', url: '/pricing' },
    trueChange: modify('app/pricing/page.tsx', {
      line: 9,
      removed: ['  const res = await fetch(`${process.env.BILLING_API_URL}/plans`, { next: { revalidate: 3600 } });'],
      added: ['  const res = await fetch(`${process.env.BILLING_API_BASE}/v2/plans`, { next: { revalidate: 3600 } });'],
    }),
    decoys: [
      modify('app/blog/[slug]/page.tsx', { line: 14, section: 'export async function generateMetadata({ params }: Props): Promise<Metadata> {', added: ['    openGraph: { images: [post.cover] },'] }),
      modify('components/Footer.tsx', { line: 21, removed: ['      <p>© 2024 Lumen Labs</p>'], added: ['      <p>© {new Date().getFullYear()} Lumen Labs</p>'] }),
      modify('package.json', { line: 18, section: '  "dependencies": {', removed: ['    "next": "14.2.3",'], added: ['    "next": "14.2.5",'] }),
    ],
    consequences: [{ kind: 'broken_link', url: '/pricing', why: 'the navigation links to the page that now fails' }],
  },
  {
    id: 'rails-customers-500',
    framework: 'rails',
    description: 'The customers controller now orders stories by a column the production database does not have yet: /customers answers 500.',
    site: makeSite({
      brand: 'Bramble',
      pages: [['/customers', 'Customer stories'], ['/pricing', 'Pricing'], ['/about', 'About'], ['/blog', 'Blog'], ['/blog/bramble-at-scale', 'Bramble at scale'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/customers': { status: 500 } } },
    expect: { kind: 'page_error', url: '/customers' },
    trueChange: modify('app/controllers/customers_controller.rb', {
      line: 4,
      section: 'class CustomersController < ApplicationController',
      removed: ['    @stories = CustomerStory.published.order(published_at: :desc)'],
      added: ['    @stories = CustomerStory.published.includes(:logo_attachment).order(featured_rank: :asc)'],
    }),
    decoys: [
      modify('app/controllers/blog_controller.rb', { line: 5, removed: ['    @posts = Post.published.page(params[:page]).per(10)'], added: ['    @posts = Post.published.page(params[:page]).per(12)'] }),
      modify('app/assets/stylesheets/customers.css', { line: 12, removed: ['  grid-template-columns: repeat(3, 1fr);'], added: ['  grid-template-columns: repeat(auto-fill, minmax(18rem, 1fr));'] }),
      modify('Gemfile.lock', { line: 210, removed: ['    rack (3.0.9)'], added: ['    rack (3.0.11)'] }),
    ],
    consequences: [{ kind: 'broken_link', url: '/customers', why: 'the navigation links to the page that now fails' }],
  },
  {
    id: 'django-careers-renamed',
    framework: 'django',
    description: 'The careers URL pattern was renamed to jobs/ (same view and name, so every {% url %} and the sitemap follow), without a redirect: /careers/ is 404.',
    site: fernhill,
    regression: {
      pages: { '/careers/': null },
      add: { '/jobs/': page('Careers', 'Fernhill') },
      nav: swap(fernhill.nav, '/careers/', '/jobs/'),
      sitemaps: { '/sitemap.xml': { urls: swap(fernhill.nav, '/careers/', '/jobs/') } },
    },
    expect: { kind: 'page_not_found', url: '/careers/' },
    trueChange: modify('fernhill/urls.py', { line: 14, removed: ['    path("careers/", views.careers, name="careers"),'], added: ['    path("jobs/", views.careers, name="careers"),'] }),
    decoys: [
      modify('fernhill/middleware.py', { line: 12, added: ['        response["Permissions-Policy"] = "geolocation=(), camera=()"'] }),
      modify('templates/careers.html', { line: 4, removed: ['<h1>Careers at Fernhill</h1>'], added: ['<h1>Join Fernhill</h1>'] }),
      modify('requirements.txt', { line: 1, removed: ['Django==4.2.11'], added: ['Django==4.2.13'] }),
    ],
    consequences: [{ kind: 'page_removed', url: '/careers/', why: 'the crawl asks for the page it had before, now 404 (nothing links to it any more)' }],
  },
  {
    id: 'nuxt-pricing-noindex',
    framework: 'nuxt',
    description: 'A `robots: noindex` meant for the staging preview of the new pricing page was merged into pages/pricing.vue.',
    site: makeSite({
      brand: 'Quillstack',
      pages: [['/pricing', 'Pricing'], ['/features', 'Features'], ['/integrations', 'Integrations'], ['/docs', 'Docs'], ['/blog', 'Blog'], ['/blog/release-3-0', 'Quillstack 3.0']],
    }),
    regression: { pages: { '/pricing': { robots: 'noindex' } } },
    expect: { kind: 'noindex_added', url: '/pricing' },
    trueChange: modify('pages/pricing.vue', { line: 7, section: 'useSeoMeta({', added: ["  robots: 'noindex',"] }),
    decoys: [
      modify('pages/blog/[slug].vue', { line: 12, section: 'useSeoMeta({', added: ['  ogImage: post.value?.cover,'] }),
      modify('components/PricingTable.vue', { line: 18, removed: ['        <span class="price">{{ plan.price }}</span>'], added: ['        <span class="price">{{ formatPrice(plan.price, locale) }}</span>'] }),
      modify('package.json', { line: 15, section: '  "dependencies": {', removed: ['    "@nuxt/content": "^2.12.1",'], added: ['    "@nuxt/content": "^2.13.0",'] }),
    ],
    consequences: [{ kind: 'noindex_page', url: '/pricing', why: 'the crawl reads the same noindex' }],
  },
  {
    id: 'hugo-changelog-disallowed',
    framework: 'hugo',
    description: 'To keep the thin changelog out of search, someone added `Disallow: /changelog/` to the robots.txt template; the page is still linked and in the sitemap.',
    site: makeSite({
      brand: 'Tern',
      pages: [['/docs/getting-started/', 'Getting started'], ['/docs/configuration/', 'Configuration'], ['/changelog/', 'Changelog'], ['/about/', 'About Tern'], ['/blog/', 'Blog'], ['/blog/tern-1-0/', 'Tern 1.0']],
    }),
    regression: { robotsTxt: robotsTxt(['User-agent: *', 'Allow: /', 'Disallow: /changelog/']) },
    expect: { kind: 'robots_blocked', url: '/changelog/' },
    trueChange: modify('layouts/robots.txt', { line: 3, added: ['Disallow: /changelog/'] }),
    decoys: [
      modify('config/_default/params.toml', { line: 6, removed: ['robots = "index, follow"'], added: ['robots = "index, follow, max-image-preview:large"'] }),
      modify('content/changelog.md', { line: 7, added: ['## 1.4.0 (2024-10-02)', '', '- New `tern watch --poll` flag for network drives.'] }),
      modify('assets/scss/_sidebar.scss', { line: 31, removed: ['  width: 16rem;'], added: ['  width: 18rem;'] }),
    ],
    consequences: [{ kind: 'blocked_by_robots', url: '/changelog/', why: 'the crawl obeys the same robots.txt rule' }],
  },
  {
    id: 'jekyll-post-nofollow',
    framework: 'jekyll',
    description: 'An author set `robots: nofollow` in a post\'s front matter (meaning its sponsored links); the head include prints it as the page\'s meta robots.',
    site: makeSite({
      brand: 'Brightwave',
      pages: [['/about/', 'About'], ['/docs/', 'Documentation'], ['/blog/', 'Blog'], ['/blog/release-notes/', 'Release notes: June'], ['/blog/hello-world/', 'Hello, world'], ['/contact/', 'Contact']],
    }),
    regression: { pages: { '/blog/release-notes/': { robots: 'nofollow' } } },
    expect: { kind: 'nofollow_added', url: '/blog/release-notes/' },
    trueChange: modify('_posts/2024-06-03-release-notes.md', { line: 5, added: ['robots: nofollow'] }),
    decoys: [
      modify('_includes/head.html', { line: 8, added: ['<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>'] }),
      modify('_posts/2024-05-14-hello-world.md', { line: 14, removed: ['Read the [docs](/docs) to get started.'], added: ['Read the [documentation](/docs/) to get started.'] }),
      modify('Gemfile.lock', { line: 40, removed: ['    jekyll-feed (0.15.1)'], added: ['    jekyll-feed (0.17.0)'] }),
    ],
    consequences: [],
  },
  {
    id: 'astro-netlify-pricing-redirect',
    framework: 'astro',
    description: 'Pricing was renamed Plans: src/pages/pricing.astro moved to plans.astro, the header and sitemap follow, and a Netlify `_redirects` rule sends /pricing to /plans.',
    site: orbit,
    regression: {
      pages: { '/pricing': null },
      add: { '/plans': page('Plans', 'Orbit') },
      redirects: { '/pricing': '/plans' },
      nav: swap(orbit.nav, '/pricing', '/plans'),
      sitemaps: { '/sitemap.xml': { urls: swap(orbit.nav, '/pricing', '/plans') } },
    },
    expect: { kind: 'redirect_added', url: '/pricing' },
    trueChange: modify('public/_redirects', { line: 3, added: ['/pricing  /plans  301'] }),
    decoys: [
      rename('src/pages/pricing.astro', 'src/pages/plans.astro'),
      modify('astro.config.mjs', { line: 11, section: 'export default defineConfig({', added: ['  redirects: {', "    '/blog/launch': '/blog/launch-week',", '  },'] }),
      modify('src/components/Header.astro', { line: 9, removed: ['    <a href="/pricing">Pricing</a>'], added: ['    <a href="/plans">Plans</a>'] }),
    ],
    consequences: [{ kind: 'redirect_added', url: '/pricing', why: 'the crawl asks for the page it had before, which now redirects' }],
  },
  {
    id: 'rails-pricing-route-redirect',
    framework: 'rails',
    description: 'Pricing moved to /plans in config/routes.rb, with `redirect("/plans")` for the old path.',
    site: gantry,
    regression: {
      pages: { '/pricing': null },
      add: { '/plans': page('Plans', 'Gantry') },
      redirects: { '/pricing': '/plans' },
      nav: swap(gantry.nav, '/pricing', '/plans'),
      sitemaps: { '/sitemap.xml': { urls: swap(gantry.nav, '/pricing', '/plans') } },
    },
    expect: { kind: 'redirect_added', url: '/pricing' },
    trueChange: modify('config/routes.rb', {
      line: 6,
      removed: ['  get "/pricing", to: "pages#pricing"'],
      added: ['  get "/plans", to: "pages#pricing"', '  get "/pricing", to: redirect("/plans", status: 301)'],
    }),
    decoys: [
      modify('app/controllers/dashboard_controller.rb', { line: 3, added: ['  before_action { redirect_to login_path, status: :see_other unless current_user }'] }),
      modify('app/views/pages/pricing.html.erb', { line: 1, removed: ['<h1>Pricing</h1>'], added: ['<h1>Plans</h1>'] }),
      modify('app/views/layouts/application.html.erb', { line: 18, removed: ['      <%= link_to "Pricing", pricing_path %>'], added: ['      <%= link_to "Plans", plans_path %>'] }),
    ],
    consequences: [{ kind: 'redirect_added', url: '/pricing', why: 'the crawl asks for the page it had before, which now redirects' }],
  },
  {
    id: 'nextjs-pages-canonical-slash',
    framework: 'nextjs-pages',
    description: 'The pricing page\'s hand-written canonical link gained a trailing slash the site does not use.',
    site: makeSite({
      brand: 'Kitewire',
      pages: [['/pricing', 'Pricing'], ['/features', 'Features'], ['/docs', 'Docs'], ['/blog', 'Blog'], ['/blog/kitewire-2', 'Kitewire 2'], ['/about', 'About']],
    }),
    regression: { pages: { '/pricing': { canonical: '/pricing/' } } },
    expect: { kind: 'canonical_changed', url: '/pricing' },
    trueChange: modify('pages/pricing.tsx', {
      line: 18,
      removed: ['        <link rel="canonical" href={`${SITE_URL}/pricing`} />'],
      added: ['        <link rel="canonical" href={`${SITE_URL}/pricing/`} />'],
    }),
    decoys: [
      modify('components/SeoHead.tsx', {
        line: 22,
        removed: ['  const canonical = `${SITE_URL}${router.asPath}`;'],
        added: ['  const canonical = `${SITE_URL}${router.asPath.split("?")[0]}`;'],
      }),
      modify('pages/_app.tsx', { line: 16, added: ['      <Script src="https://plausible.io/js/script.js" data-domain="kitewire.dev" strategy="afterInteractive" />'] }),
      modify('styles/pricing.module.css', { line: 4, removed: ['  gap: 1.5rem;'], added: ['  gap: 2rem;'] }),
    ],
    consequences: [],
  },
  {
    id: 'jekyll-page-canonical-url',
    framework: 'jekyll',
    description: 'The press page was syndicated and got jekyll-seo-tag\'s `canonical_url` pointing at the news site.',
    site: makeSite({
      brand: 'Cobalt Press',
      pages: [['/about/', 'About'], ['/press/', 'Press'], ['/books/', 'Books'], ['/blog/', 'Blog'], ['/blog/summer-update/', 'Summer update'], ['/contact/', 'Contact']],
    }),
    regression: { pages: { '/press/': { canonical: 'https://news.cobalt.example/press/' } } },
    expect: { kind: 'canonical_changed', url: '/press/' },
    trueChange: modify('_pages/press.md', { line: 4, added: ['canonical_url: https://news.cobalt.example/press/'] }),
    decoys: [
      modify('_includes/head-custom.html', { line: 2, added: ['<link rel="alternate" type="application/rss+xml" title="Cobalt Press" href="{{ "/feed.xml" | relative_url }}">'] }),
      modify('_posts/2024-07-01-summer-update.md', { line: 6, added: ['canonical_url: https://medium.com/@cobaltpress/summer-update-3f1a'] }),
      modify('_sass/_typography.scss', { line: 3, removed: ['$base-font-size: 17px;'], added: ['$base-font-size: 18px;'] }),
    ],
    consequences: [],
  },
  {
    id: 'sveltekit-about-title',
    framework: 'sveltekit',
    description: 'The <title> of the about page was dropped from its <svelte:head> in a copy edit.',
    site: makeSite({
      brand: 'Nimbus',
      pages: [['/about', 'About us'], ['/pricing', 'Pricing'], ['/blog', 'Blog'], ['/blog/introducing-nimbus', 'Introducing Nimbus'], ['/careers', 'Careers'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/about': { title: null } } },
    expect: { kind: 'title_missing', url: '/about' },
    trueChange: modify('src/routes/about/+page.svelte', { line: 6, section: '<svelte:head>', removed: ['  <title>About us | Nimbus</title>'] }),
    decoys: [
      modify('src/routes/+layout.svelte', { line: 4, section: '<svelte:head>', added: ['  <link rel="icon" href="/favicon.png" />'] }),
      modify('src/routes/blog/[slug]/+page.svelte', { line: 9, removed: ['  <title>{data.post.title} | Nimbus</title>'], added: ['  <title>{data.post.title} · Nimbus blog</title>'] }),
      modify('src/routes/pricing/+page.svelte', { line: 27, removed: ['<h2>Frequently asked questions</h2>'], added: ['<h2>Questions, answered</h2>'] }),
    ],
    consequences: [],
  },
  {
    id: 'hugo-home-canonical',
    framework: 'hugo',
    description: 'The head partial now prints the canonical link only `{{ if .IsPage }}` (to skip taxonomy lists), so the home page, a list page, lost it.',
    site: makeSite({
      brand: 'Larkspur',
      pages: [['/about/', 'About'], ['/posts/first-light/', 'First light'], ['/posts/field-notes/', 'Field notes'], ['/posts/night-sky/', 'Night sky'], ['/contact/', 'Contact']],
    }),
    regression: { pages: { '/': { canonical: null } } },
    expect: { kind: 'canonical_removed', url: '/' },
    trueChange: modify('layouts/partials/head.html', {
      line: 9,
      removed: ['<link rel="canonical" href="{{ .Permalink }}">'],
      added: ['{{ if .IsPage }}<link rel="canonical" href="{{ .Permalink }}">{{ end }}'],
    }),
    decoys: [
      modify('content/_index.md', { line: 3, removed: ['description: "Notes on birds, weather and the night sky."'], added: ['description: "Field notes on birds, weather and the night sky."'] }),
      modify('layouts/_default/single.html', {
        line: 12,
        removed: ['<time>{{ .Date.Format "2 Jan 2006" }}</time>'],
        added: ['<time datetime="{{ .Date.Format "2006-01-02" }}">{{ .Date.Format "2 January 2006" }}</time>'],
      }),
      modify('layouts/partials/footer.html', { line: 3, removed: ['<p>&copy; 2023 Larkspur</p>'], added: ['<p>&copy; {{ now.Year }} Larkspur</p>'] }),
    ],
    consequences: [],
  },
  {
    id: 'astro-post-description',
    framework: 'astro',
    description: 'One blog post\'s front matter says `summary:` instead of `description:`, so the layout prints no meta description for it.',
    site: makeSite({
      brand: 'Pebble',
      pages: [['/blog', 'Blog'], ['/blog/launch-week', 'Launch week recap'], ['/blog/design-notes', 'Design notes'], ['/pricing', 'Pricing'], ['/about', 'About'], ['/docs', 'Docs']],
    }),
    regression: { pages: { '/blog/launch-week': { description: null } } },
    expect: { kind: 'meta_description_missing', url: '/blog/launch-week' },
    trueChange: modify('src/content/blog/launch-week.md', {
      line: 3,
      removed: ['description: "Five days, five new Pebble features: a recap of launch week."'],
      added: ['summary: "Five days, five new Pebble features: a recap of launch week."'],
    }),
    decoys: [
      modify('src/content/docs/design-tokens.md', { line: 22, added: ['See the [spacing scale](/docs) for every step.'] }),
      modify('src/components/BaseHead.astro', { line: 14, added: ['<meta property="og:site_name" content="Pebble" />'] }),
      modify('src/styles/global.css', { line: 40, removed: ['  --accent: #4f46e5;'], added: ['  --accent: #6d28d9;'] }),
    ],
    consequences: [],
  },
  {
    id: 'nextjs-app-about-description',
    framework: 'nextjs-app',
    description: 'The about page\'s `metadata` lost its `description` in a refactor; the root layout has none to fall back on.',
    site: makeSite({
      brand: 'Ridgeback',
      pages: [['/about', 'About'], ['/pricing', 'Pricing'], ['/customers', 'Customers'], ['/blog', 'Blog'], ['/blog/ridgeback-launch', 'Ridgeback launch'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/about': { description: null } } },
    expect: { kind: 'meta_description_missing', url: '/about' },
    trueChange: modify('app/about/page.tsx', { line: 5, section: 'export const metadata: Metadata = {', removed: ["  description: 'Ridgeback is a small team building calm tools for on-call engineers.',"] }),
    decoys: [
      modify('app/layout.tsx', {
        line: 9,
        section: 'export const metadata: Metadata = {',
        removed: ["  title: { template: '%s | Ridgeback', default: 'Ridgeback' },"],
        added: ["  title: { template: '%s · Ridgeback', default: 'Ridgeback: calm on-call' },"],
      }),
      modify('app/customers/page.tsx', { line: 22, added: ['        <Image src={logo.src} alt={logo.name} width={120} height={40} />'] }),
      modify('content/blog/ridgeback-launch.mdx', { line: 30, removed: ['We shipped on a Tuesday.'], added: ['We shipped on a Tuesday, on purpose.'] }),
    ],
    consequences: [],
  },
  {
    id: 'rails-about-h1',
    framework: 'rails',
    description: 'A restyle turned the about page\'s <h1> into a <div>.',
    site: makeSite({
      brand: 'Harbor',
      pages: [['/about', 'About Harbor'], ['/pricing', 'Pricing'], ['/customers', 'Customers'], ['/blog', 'Blog'], ['/blog/harbor-2024', 'Harbor in 2024'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/about': { h1: [] } } },
    expect: { kind: 'h1_missing', url: '/about' },
    trueChange: modify('app/views/pages/about.html.erb', {
      line: 2,
      removed: ['  <h1 class="page-title"><%= t(".title") %></h1>'],
      added: ['  <div class="page-title"><%= t(".title") %></div>'],
    }),
    decoys: [
      modify('app/views/layouts/application.html.erb', { line: 11, added: ['    <%= javascript_include_tag "analytics", defer: true %>'] }),
      modify('app/views/shared/_hero.html.erb', { line: 3, removed: ['  <h2 class="hero-title"><%= title %></h2>'], added: ['  <h1 class="hero-title"><%= title %></h1>'] }),
      modify('config/locales/en.yml', { line: 12, removed: ['      intro: "Harbor keeps your releases calm."'], added: ['      intro: "Harbor keeps every release calm."'] }),
    ],
    consequences: [],
  },
  {
    id: 'nextjs-app-faq-schema',
    framework: 'nextjs-app',
    description: 'The FAQ page stopped rendering its FAQPage JSON-LD when the questions moved to an accordion component.',
    site: makeSite({
      brand: 'Tally',
      pages: [['/faq', 'Frequently asked questions'], ['/pricing', 'Pricing'], ['/features', 'Features'], ['/blog', 'Blog'], ['/blog/tally-for-teams', 'Tally for teams'], ['/about', 'About']],
      overrides: { '/faq': { jsonLd: ['FAQPage'] } },
    }),
    regression: { pages: { '/faq': { jsonLd: [] } } },
    expect: { kind: 'structured_data_removed', url: '/faq' },
    trueChange: modify('app/faq/page.tsx', { line: 31, removed: ['      <JsonLd data={faqSchema(questions)} />'], added: ['      <Accordion items={questions} />'] }),
    decoys: [
      modify('app/pricing/page.tsx', { line: 44, removed: ['        <h2>Compare plans</h2>'], added: ['        <h2>Compare every plan</h2>'] }),
      modify('components/JsonLd.tsx', {
        line: 7,
        removed: ['      dangerouslySetInnerHTML={{ __html: JSON.stringify(data) }}'],
        added: ['      dangerouslySetInnerHTML={{ __html: JSON.stringify(data).replace(/</g, "\\\\u003c") }}'],
      }),
      modify('package.json', { line: 31, section: '  "devDependencies": {', removed: ['    "schema-dts": "^1.1.2",'], added: ['    "schema-dts": "^1.1.5",'] }),
    ],
    consequences: [],
  },
  {
    id: 'django-pricing-hreflang',
    framework: 'django',
    description: 'The French pricing page was unpublished and its hreflang alternate removed from the pricing template.',
    site: makeSite({
      brand: 'Alpenrose',
      pages: [['/pricing/', 'Pricing'], ['/features/', 'Features'], ['/about/', 'About'], ['/blog/', 'Blog'], ['/blog/winter-release/', 'Winter release'], ['/contact/', 'Contact']],
      overrides: {
        '/pricing/': {
          hreflang: [
            { lang: 'en', href: '/pricing/' },
            { lang: 'de', href: '/de/preise/' },
            { lang: 'fr', href: '/fr/tarifs/' },
          ],
        },
      },
    }),
    regression: {
      pages: {
        '/pricing/': {
          hreflang: [
            { lang: 'en', href: '/pricing/' },
            { lang: 'de', href: '/de/preise/' },
          ],
        },
      },
    },
    expect: { kind: 'hreflang_removed', url: '/pricing/' },
    trueChange: modify('templates/pages/pricing.html', { line: 7, section: '{% block alternates %}', removed: ['<link rel="alternate" hreflang="fr" href="https://alpenrose.example/fr/tarifs/">'] }),
    decoys: [
      modify('templates/base.html', { line: 10, added: [`<link rel="preload" href="{% static 'fonts/inter.woff2' %}" as="font" type="font/woff2" crossorigin>`] }),
      modify('alpenrose/settings.py', { line: 88, removed: ['        "TIMEOUT": 300,'], added: ['        "TIMEOUT": 600,'] }),
      modify('locale/de/LC_MESSAGES/django.po', { line: 120, removed: ['msgstr "Preise ansehen"'], added: ['msgstr "Alle Preise ansehen"'] }),
    ],
    consequences: [],
  },
  {
    id: 'hugo-guide-truncated',
    framework: 'hugo',
    description: 'A botched merge of the deploying guide dropped its VPS and Docker sections: most of the page is gone.',
    site: makeSite({
      brand: 'Skiff',
      pages: [['/guides/installing/', 'Installing Skiff'], ['/guides/deploying/', 'Deploying Skiff'], ['/guides/configuring/', 'Configuring Skiff'], ['/reference/cli/', 'CLI reference'], ['/about/', 'About'], ['/blog/skiff-0-9/', 'Skiff 0.9']],
      overrides: { '/guides/deploying/': { words: 900 } },
    }),
    regression: { pages: { '/guides/deploying/': { words: 260 } } },
    expect: { kind: 'content_shrunk', url: '/guides/deploying/' },
    trueChange: modify('content/guides/deploying.md', {
      line: 41,
      removed: [
        '## Deploying to a VPS',
        '',
        'Copy the built `public/` folder to your server with rsync:',
        '',
        '```sh',
        'rsync -avz --delete public/ deploy@host:/var/www/skiff/',
        '```',
        '',
        'Then point your web server at `/var/www/skiff` and reload it.',
        '',
        '## Deploying with Docker',
        '',
        'Build the image from the Dockerfile in the repository root (see the [CLI reference](/reference/cli/)):',
      ],
    }),
    decoys: [
      modify('content/blog/skiff-0-9.md', { line: 18, removed: ['Skiff 0.9 is teh fastest release yet.'], added: ['Skiff 0.9 is the fastest release yet.'] }),
      modify('layouts/_default/single.html', { line: 6, added: ['{{ partial "toc.html" . }}'] }),
      modify('assets/css/main.css', { line: 77, removed: ['  max-width: 42rem;'], added: ['  max-width: 46rem;'] }),
    ],
    consequences: [],
  },
  {
    id: 'html-resources-links',
    framework: 'html',
    description: 'The hand-written list of resource links was replaced by a search box that loads the list with JavaScript: the HTML has no links left in the page body.',
    site: makeSite({
      brand: 'Meridian Library',
      pages: [['/about.html', 'About the library'], ['/resources.html', 'Resources'], ['/events.html', 'Events'], ['/visit.html', 'Visit us'], ['/membership.html', 'Membership'], ['/faq.html', 'FAQ'], ['/contact.html', 'Contact']],
      overrides: { '/resources.html': { links: RESOURCE_LINKS.map(([href]) => href) } },
    }),
    regression: { pages: { '/resources.html': { links: [] } } },
    expect: { kind: 'internal_links_dropped', url: '/resources.html' },
    trueChange: modify('resources.html', {
      line: 31,
      removed: ['      <ul class="resource-list">', ...RESOURCE_LINKS.map(([href, text]) => `        <li><a href="${href}">${text}</a></li>`), '      </ul>'],
      added: ['      <div id="resource-search" data-src="/data/resources.json"></div>', '      <script src="/js/resource-search.js" defer></script>'],
    }),
    decoys: [
      modify('events.html', { line: 40, removed: ['      <p class="date">Saturday, March 9</p>'], added: ['      <p class="date">Saturday, March 16</p>'] }),
      addFile('js/resource-search.js', ['const root = document.getElementById("resource-search");', 'fetch(root.dataset.src).then((r) => r.json()).then(render);']),
      modify('css/site.css', { line: 112, added: ['#resource-search { min-height: 24rem; }'] }),
    ],
    consequences: [],
  },
  {
    id: 'sveltekit-pricing-slow',
    framework: 'sveltekit',
    description: 'The pricing page\'s server load now waits for a currency-rates API before rendering: its time to first byte went from a few milliseconds to almost a second.',
    site: makeSite({
      brand: 'Corvid',
      pages: [['/pricing', 'Pricing'], ['/features', 'Features'], ['/blog', 'Blog'], ['/blog/corvid-goes-ga', 'Corvid goes GA'], ['/about', 'About'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/pricing': { delayMs: 900 } } },
    expect: { kind: 'slower_response', url: '/pricing' },
    trueChange: modify(
      'src/routes/pricing/+page.server.ts',
      { line: 2, added: ["import { env } from '$env/dynamic/private';"] },
      {
        line: 9,
        newLine: 10,
        section: 'export const load: PageServerLoad = async ({ fetch }) => {',
        removed: ['  return { plans };'],
        added: ['  const rates = await fetch(`${env.FX_API_URL}/latest?base=USD`).then((r) => r.json());', '  return { plans: convert(plans, rates) };'],
      },
    ),
    decoys: [
      modify('src/routes/blog/+page.svelte', { line: 15, removed: ['    <p>{post.excerpt}</p>'], added: ['    <p>{truncate(post.excerpt, 160)}</p>'] }),
      modify('src/lib/components/Footer.svelte', { line: 8, removed: ['  <p>© 2024 Corvid</p>'], added: ['  <p>© {year} Corvid</p>'] }),
      modify('package.json', { line: 20, section: '  "devDependencies": {', removed: ['    "@sveltejs/kit": "^2.5.0",'], added: ['    "@sveltejs/kit": "^2.5.10",'] }),
    ],
    consequences: [],
  },
  {
    id: 'astro-home-inline-hero',
    framework: 'astro',
    description: 'The home page hero is now a base64 PNG inlined in the markup instead of an optimized <Image>: the HTML grew by 400 KB.',
    site: makeSite({
      brand: 'Foxglove',
      pages: [['/features', 'Features'], ['/pricing', 'Pricing'], ['/blog', 'Blog'], ['/blog/foxglove-1-0', 'Foxglove 1.0'], ['/about', 'About'], ['/contact', 'Contact']],
    }),
    regression: { pages: { '/': { extraBody: inlineImage(400_000, 'Foxglove dashboard') } } },
    expect: { kind: 'page_weight_increased', url: '/' },
    trueChange: modify(
      'src/pages/index.astro',
      { line: 3, added: ["import heroBase64 from '../assets/hero.png?base64';"] },
      {
        line: 21,
        newLine: 22,
        removed: ['  <Image src={hero} alt="Foxglove dashboard" widths={[640, 1280]} sizes="(max-width: 640px) 100vw, 1280px" />'],
        added: ['  <img src={`data:image/png;base64,${heroBase64}`} alt="Foxglove dashboard" width="1280" height="720" />'],
      },
    ),
    decoys: [
      modify('src/pages/pricing.astro', { line: 30, removed: ['  <h2>Plans for every team</h2>'], added: ['  <h2>Plans for teams of every size</h2>'] }),
      modify('src/assets/hero.png'),
      modify('package.json', { line: 14, section: '  "dependencies": {', removed: ['    "astro": "^4.10.2",'], added: ['    "astro": "^4.11.0",'] }),
    ],
    consequences: [],
  },
];
