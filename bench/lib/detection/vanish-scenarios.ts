// Corpus scenarios for two regressions an HTML walk of links used to miss (issue 26), one of
// each per framework:
// - a page deleted together with every link to it and its sitemap entry, now 404: nothing links
//   to it, so only the crawl's second look at the previous crawl's pages finds it (page_removed);
// - a small page whose HTML grew sevenfold because an image was inlined as base64 and lazy
//   loading dropped (page_weight_increased), which the old 100 KB bar could not see.
// See bench/lib/detection-corpus.ts for the shape of an entry.

import type { Framework, Scenario } from '../detection-corpus.ts';
import { deleteFile, modify, type FileChange, type Hunk } from './changes.ts';
import { inlineImage, makeSite, pageBytes, type SiteModel } from './site.ts';

/** How one framework lays out a small marketing site's files. */
interface Layout {
  framework: Framework;
  brand: string;
  /** The pages besides home, as URL paths. */
  pages: Array<[string, string]>;
  /** The page deleted (URL) and its source as deleted (true change), or the routing edit that removed it. */
  deleted: { url: string; change: FileChange };
  /** The navigation's source and the line with the deleted page's link. */
  nav: { path: string; line: number; removed: string };
  /** Another page's source edited in the same deploy (same category as the true change, no shared signal). */
  otherPage: FileChange;
  /** The page that grows and the hunk of its source that inlines the picture. */
  grown: { url: string; path: string; hunk: Hunk };
  /** A stylesheet or dependency edit, unrelated to both. */
  unrelated: FileChange;
  /** Where the page is removed by a routing edit: another routing file's edit in the same deploy. */
  otherRouting?: FileChange;
}

const LAZY = (src: string, alt: string) => `<img src="${src}" alt="${alt}" loading="lazy" width="1200" height="480" />`;
const INLINE = (alt: string) => `<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAABLAAAAHgCAYAAAC...${'A'.repeat(40)}" alt="${alt}" width="1200" height="480" />`;
const imageHunk = (line: number, alt: string): Hunk => ({ line, removed: [`  ${LAZY('/images/customers-wall.png', alt)}`], added: [`  ${INLINE(alt)}`] });

const LAYOUTS: Layout[] = [
  {
    framework: 'nextjs-app',
    brand: 'Kestrel',
    pages: [['/pricing', 'Pricing'], ['/customers', 'Customers'], ['/webinars', 'Webinars'], ['/blog', 'Blog'], ['/blog/kestrel-2', 'Kestrel 2'], ['/about', 'About']],
    deleted: {
      url: '/webinars',
      change: deleteFile('app/webinars/page.tsx', [
        "import { getWebinars } from '@/lib/webinars';",
        '',
        "export const metadata = { title: 'Webinars | Kestrel' };",
        '',
        'export default async function Webinars() {',
        '  const webinars = await getWebinars();',
        '  return <WebinarList items={webinars} />;',
        '}',
      ]),
    },
    nav: { path: 'components/Header.tsx', line: 14, removed: '        <Link href="/webinars">Webinars</Link>' },
    otherPage: modify('app/pricing/page.tsx', { line: 22, removed: ['      <h2>Compare plans</h2>'], added: ['      <h2>Compare every plan</h2>'] }),
    grown: { url: '/customers', path: 'app/customers/page.tsx', hunk: imageHunk(18, 'Customer logos') },
    unrelated: modify('package.json', { line: 16, section: '  "dependencies": {', removed: ['    "next": "14.2.5",'], added: ['    "next": "14.2.7",'] }),
  },
  {
    framework: 'nextjs-pages',
    brand: 'Quill',
    pages: [['/features', 'Features'], ['/showcase', 'Showcase'], ['/events', 'Events'], ['/blog', 'Blog'], ['/blog/quill-launch', 'Quill launch'], ['/contact', 'Contact']],
    deleted: {
      url: '/events',
      change: deleteFile('pages/events.tsx', [
        "import Head from 'next/head';",
        '',
        'export default function Events({ events }: Props) {',
        '  return (<><Head><title>Events | Quill</title></Head><EventList events={events} /></>);',
        '}',
      ]),
    },
    nav: { path: 'components/Nav.tsx', line: 9, removed: '      <Link href="/events">Events</Link>' },
    otherPage: modify('pages/features.tsx', { line: 30, removed: ['        <p>Write together in real time.</p>'], added: ['        <p>Write together, in real time.</p>'] }),
    grown: { url: '/showcase', path: 'pages/showcase.tsx', hunk: imageHunk(24, 'Showcase gallery') },
    unrelated: modify('styles/globals.css', { line: 40, removed: ['  gap: 1rem;'], added: ['  gap: 1.25rem;'] }),
  },
  {
    framework: 'astro',
    brand: 'Heron',
    pages: [['/pricing', 'Pricing'], ['/integrations', 'Integrations'], ['/roadmap', 'Roadmap'], ['/blog', 'Blog'], ['/blog/heron-summer', 'Heron summer'], ['/about', 'About']],
    deleted: {
      url: '/roadmap',
      change: deleteFile('src/pages/roadmap.astro', [
        '---',
        "import Layout from '../layouts/Layout.astro';",
        '---',
        '<Layout title="Roadmap | Heron" description="What we are building next.">',
        '  <h1>Roadmap</h1>',
        '</Layout>',
      ]),
    },
    nav: { path: 'src/components/Header.astro', line: 11, removed: '    <a href="/roadmap">Roadmap</a>' },
    otherPage: modify('src/pages/pricing.astro', { line: 26, removed: ['  <p>Billed yearly.</p>'], added: ['  <p>Billed yearly or monthly.</p>'] }),
    grown: { url: '/integrations', path: 'src/pages/integrations.astro', hunk: imageHunk(15, 'Integration logos') },
    unrelated: modify('src/styles/global.css', { line: 12, removed: ['  --accent: #2563eb;'], added: ['  --accent: #1d4ed8;'] }),
  },
  {
    framework: 'nuxt',
    brand: 'Lark',
    pages: [['/pricing', 'Pricing'], ['/team', 'Team'], ['/press', 'Press'], ['/blog', 'Blog'], ['/blog/lark-one-year', 'One year of Lark'], ['/contact', 'Contact']],
    deleted: {
      url: '/press',
      change: deleteFile('pages/press.vue', [
        '<script setup lang="ts">',
        "useSeoMeta({ title: 'Press | Lark' });",
        '</script>',
        '<template>',
        '  <h1>Press</h1>',
        '</template>',
      ]),
    },
    nav: { path: 'components/AppHeader.vue', line: 12, removed: '        <NuxtLink to="/press">Press</NuxtLink>' },
    otherPage: modify('pages/pricing.vue', { line: 19, removed: ['    <p class="lead">Simple pricing.</p>'], added: ['    <p class="lead">Simple, fair pricing.</p>'] }),
    grown: { url: '/team', path: 'pages/team.vue', hunk: imageHunk(11, 'The Lark team') },
    unrelated: modify('assets/css/main.css', { line: 8, removed: ['  font-size: 16px;'], added: ['  font-size: 17px;'] }),
  },
  {
    framework: 'sveltekit',
    brand: 'Ember',
    pages: [['/pricing', 'Pricing'], ['/gallery', 'Gallery'], ['/partners', 'Partners'], ['/blog', 'Blog'], ['/blog/ember-winter', 'Ember winter'], ['/about', 'About']],
    deleted: {
      url: '/partners',
      change: deleteFile('src/routes/partners/+page.svelte', [
        '<svelte:head>',
        '  <title>Partners | Ember</title>',
        '</svelte:head>',
        '',
        '<h1>Partners</h1>',
      ]),
    },
    nav: { path: 'src/lib/components/Nav.svelte', line: 8, removed: '  <a href="/partners">Partners</a>' },
    otherPage: modify('src/routes/pricing/+page.svelte', { line: 17, removed: ['<p>Cancel any time.</p>'], added: ['<p>Cancel at any time.</p>'] }),
    grown: { url: '/gallery', path: 'src/routes/gallery/+page.svelte', hunk: imageHunk(9, 'Gallery') },
    unrelated: modify('src/app.css', { line: 30, removed: ['  --radius: 6px;'], added: ['  --radius: 10px;'] }),
  },
  {
    framework: 'hugo',
    brand: 'Alder',
    pages: [['/services/', 'Services'], ['/projects/', 'Projects'], ['/awards/', 'Awards'], ['/blog/', 'Blog'], ['/blog/alder-autumn/', 'Autumn at Alder'], ['/contact/', 'Contact']],
    deleted: {
      url: '/awards/',
      change: deleteFile('content/awards.md', ['---', 'title: "Awards"', 'description: "Prizes our work has won."', '---', '', '# Awards', '', 'Our work has been recognised by...']),
    },
    nav: { path: 'layouts/partials/nav.html', line: 6, removed: '  <a href="/awards/">Awards</a>' },
    otherPage: modify('content/services.md', { line: 9, removed: ['We design landscapes for homes.'], added: ['We design landscapes for homes and schools.'] }),
    grown: {
      url: '/projects/',
      path: 'content/projects.md',
      hunk: { line: 12, removed: ['{{< figure src="/images/projects-wall.jpg" alt="Projects" loading="lazy" >}}'], added: [`${INLINE('Projects')}`] },
    },
    unrelated: modify('assets/scss/main.scss', { line: 21, removed: ['  margin: 0 auto;'], added: ['  margin: 0 auto 2rem;'] }),
  },
  {
    framework: 'jekyll',
    brand: 'Thimble',
    pages: [['/workshops/', 'Workshops'], ['/patterns/', 'Patterns'], ['/stockists/', 'Stockists'], ['/blog/', 'Blog'], ['/blog/spring-patterns/', 'Spring patterns'], ['/about/', 'About']],
    deleted: {
      url: '/stockists/',
      change: deleteFile('_pages/stockists.md', ['---', 'layout: page', 'title: Stockists', 'permalink: /stockists/', '---', '', 'Find our patterns in these shops.']),
    },
    nav: { path: '_includes/nav.html', line: 7, removed: '    <a href="/stockists/">Stockists</a>' },
    otherPage: modify('_pages/workshops.md', { line: 8, removed: ['Workshops run every Saturday.'], added: ['Workshops run every other Saturday.'] }),
    grown: {
      url: '/patterns/',
      path: '_pages/patterns.md',
      hunk: { line: 10, removed: ['<img src="/assets/img/patterns.jpg" alt="Patterns" loading="lazy">'], added: [`${INLINE('Patterns')}`] },
    },
    unrelated: modify('_sass/_base.scss', { line: 14, removed: ['  line-height: 1.5;'], added: ['  line-height: 1.6;'] }),
  },
  {
    framework: 'django',
    brand: 'Brackenridge',
    pages: [['/about/', 'About'], ['/menu/', 'Menu'], ['/catering/', 'Catering'], ['/blog/', 'Journal'], ['/blog/new-season/', 'New season'], ['/contact/', 'Contact']],
    deleted: {
      url: '/catering/',
      change: modify('brackenridge/urls.py', { line: 11, removed: ['    path("catering/", views.catering, name="catering"),'] }),
    },
    nav: { path: 'templates/partials/nav.html', line: 9, removed: '  <a href="{% url \'catering\' %}">Catering</a>' },
    otherRouting: modify('blog/urls.py', { line: 3, added: ['app_name = "blog"'] }),
    otherPage: modify('brackenridge/views.py', { line: 30, removed: ['    return render(request, "pages/menu.html", {"dishes": dishes})'], added: ['    return render(request, "pages/menu.html", {"dishes": dishes, "season": season})'] }),
    grown: { url: '/menu/', path: 'templates/pages/menu.html', hunk: imageHunk(14, 'Our dishes') },
    unrelated: modify('requirements.txt', { line: 1, removed: ['Django==4.2.13'], added: ['Django==4.2.14'] }),
  },
  {
    framework: 'rails',
    brand: 'Pinecrest',
    pages: [['/pricing', 'Pricing'], ['/clients', 'Clients'], ['/webinars', 'Webinars'], ['/blog', 'Blog'], ['/blog/pinecrest-5', 'Pinecrest 5'], ['/about', 'About']],
    deleted: {
      url: '/webinars',
      change: modify('config/routes.rb', { line: 9, removed: ['  get "/webinars", to: "pages#webinars"'] }),
    },
    nav: { path: 'app/views/layouts/_nav.html.erb', line: 6, removed: '    <%= link_to "Webinars", webinars_path %>' },
    otherPage: modify('app/views/pages/pricing.html.erb', { line: 7, removed: ['  <p>All plans include support.</p>'], added: ['  <p>Every plan includes support.</p>'] }),
    otherRouting: modify('config/routes/api.rb', { line: 2, removed: ['  # Version 1 of the public API'], added: ['  # Version 1 of the public API (deprecated)'] }),
    grown: { url: '/clients', path: 'app/views/pages/clients.html.erb', hunk: imageHunk(12, 'Client logos') },
    unrelated: modify('Gemfile.lock', { line: 80, removed: ['    rails (7.1.3)'], added: ['    rails (7.1.4)'] }),
  },
  {
    framework: 'html',
    brand: 'Lantern',
    pages: [['/menu.html', 'Menu'], ['/gallery.html', 'Gallery'], ['/events.html', 'Events'], ['/about.html', 'About'], ['/contact.html', 'Contact']],
    deleted: {
      url: '/events.html',
      change: deleteFile('events.html', ['<!DOCTYPE html>', '<html lang="en">', '<head><title>Events | Lantern</title></head>', '<body><h1>Events</h1></body>', '</html>']),
    },
    nav: { path: 'partials/header.html', line: 5, removed: '      <li><a href="/events.html">Events</a></li>' },
    otherPage: modify('menu.html', { line: 40, removed: ['        <li>Soup of the day</li>'], added: ['        <li>Soup of the day (vegan)</li>'] }),
    grown: { url: '/gallery.html', path: 'gallery.html', hunk: imageHunk(31, 'Our rooms') },
    unrelated: modify('css/styles.css', { line: 88, removed: ['.gallery { gap: 8px; }'], added: ['.gallery { gap: 12px; }'] }),
  },
];

function site(l: Layout): SiteModel {
  return makeSite({ brand: l.brand, pages: l.pages });
}

function deletedPage(l: Layout): Scenario {
  const base = site(l);
  const url = l.deleted.url;
  const kept = base.nav.filter((p) => p !== url);
  return {
    id: `${l.framework}-${url.replace(/\.html$/, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-deleted-unlinked`,
    framework: l.framework,
    description: `The ${url} page was deleted, with its link in the navigation and its sitemap entry: nothing links to it any more and it answers 404, but search engines still hold the URL.`,
    site: base,
    regression: { pages: { [url]: null }, nav: kept, sitemaps: { '/sitemap.xml': { urls: kept } } },
    expect: { kind: 'page_removed', url },
    trueChange: l.deleted.change,
    decoys: [modify(l.nav.path, { line: l.nav.line, removed: [l.nav.removed] }), l.otherRouting ?? l.otherPage, l.unrelated],
    consequences: [{ kind: 'page_not_found', url, why: 'the check looks at the pages of the last crawl, this one among them' }],
  };
}

function grownPage(l: Layout): Scenario {
  const base = site(l);
  const url = l.grown.url;
  const before = pageBytes(base, url);
  return {
    id: `${l.framework}-${url.replace(/\.html$/, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-inline-7x`,
    framework: l.framework,
    description: `A ${(before / 1000).toFixed(1)} KB page: its picture is now inlined as base64 without lazy loading, and its HTML weighs seven times as much (${((7 * before) / 1000).toFixed(1)} KB, under the 100 KB the old rule required as growth).`,
    site: base,
    regression: { pages: { [url]: { extraBody: inlineImage(6 * before, 'picture') } } },
    expect: { kind: 'page_weight_increased', url },
    trueChange: modify(l.grown.path, l.grown.hunk),
    decoys: [l.otherPage, modify(l.nav.path, { line: l.nav.line, removed: [l.nav.removed], added: [l.nav.removed.replace(/>([^<]+)</, '>$1 ↗<')] }), l.unrelated],
    consequences: [],
  };
}

export const VANISH_SCENARIOS: Scenario[] = [...LAYOUTS.map(deletedPage), ...LAYOUTS.map(grownPage)];
