// node --import tsx bench/parse-throughput.ts [pages=200] [rounds=10]
//
// Analyzer vs raw htmlparser2 throughput (bench/lib/parse-throughput.ts) on generated pages of
// 20-200 KB built like real ones: a long navigation, text, a product grid with image srcsets and
// data attributes, inline SVG icons, JSON-LD and a large inline JSON state script.
// Target: the analyzer keeps at least 50% of the raw parser's throughput. Prints, writes nothing.

import { measureParseThroughput } from './lib/parse-throughput.ts';
import { escapeHtml, htmlPage, prng } from '../test/support/fixture-site.ts';

const pageCount = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 10);

function card(i: number, rand: () => number): string {
  const id = Math.floor(rand() * 1e6);
  return `<div class="product-card col-6 col-md-4 col-lg-3" data-product-id="${id}" data-position="${i}" data-list="catalog">
  <a class="product-card__link" href="/products/item-${id}?ref=grid&amp;pos=${i}">
    <picture><source type="image/webp" srcset="/img/${id}-320.webp 320w, /img/${id}-640.webp 640w, /img/${id}-960.webp 960w" sizes="(max-width: 768px) 50vw, 25vw">
    <img class="product-card__image lazyload" src="/img/${id}-320.jpg" alt="${escapeHtml(`Product ${id} in blue`)}" width="320" height="320" loading="lazy" decoding="async"></picture>
    <h3 class="product-card__title">Product ${id} &ndash; comfortable everyday item</h3>
  </a>
  <div class="product-card__price"><span class="price price--sale">&euro;${(rand() * 100).toFixed(2)}</span> <s class="price price--was">&euro;${(rand() * 200).toFixed(2)}</s></div>
  <button type="button" class="btn btn-primary btn-sm js-add-to-cart" data-id="${id}" aria-label="Add to cart"><svg class="icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true"><path d="M0 1.5A.5.5 0 0 1 .5 1H2a.5.5 0 0 1 .485.379L2.89 3H14.5a.5.5 0 0 1 .491.592l-1.5 8A.5.5 0 0 1 13 12H4a.5.5 0 0 1-.491-.408L2.01 3.607 1.61 2H.5a.5.5 0 0 1-.5-.5z"/></svg> Add</button>
</div>`;
}

function realisticPage(n: number, targetBytes: number): Buffer {
  const rand = prng(n + 1);
  const links = Array.from({ length: 30 + Math.floor(rand() * 60) }, (_, i) => `/category/${i}/${Math.floor(rand() * 1000)}`);
  const state = JSON.stringify({ props: { pageProps: { items: Array.from({ length: 20 + Math.floor(rand() * 80) }, (_, i) => ({ id: i, name: `Item ${i}`, price: rand() * 100, tags: ['a', 'b', 'c'] })) } } });
  const base = {
    title: `Catalog page ${n} | Example Shop`,
    description: 'Everyday items at fair prices, shipped in two days.',
    canonical: `https://www.example.com/catalog/${n}`,
    h1: [`Catalog page ${n}`],
    hreflang: [{ lang: 'en', href: `https://www.example.com/catalog/${n}` }, { lang: 'de', href: `https://www.example.com/de/catalog/${n}` }],
    jsonLd: [
      { '@context': 'https://schema.org', '@type': 'BreadcrumbList', itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Home', item: 'https://www.example.com/' }] },
      { '@context': 'https://schema.org', '@graph': [{ '@type': 'Organization', name: 'Example' }, { '@type': 'WebSite', name: 'Example Shop' }] },
    ],
    links,
    words: 200 + Math.floor(rand() * 1500),
    extraHead: `<script id="__NEXT_DATA__" type="application/json">${state}</script>`,
  };
  const fixed = Buffer.byteLength(htmlPage(base));
  const cards: string[] = [];
  let size = fixed;
  while (size < targetBytes) {
    const c = card(cards.length, rand);
    cards.push(c);
    size += Buffer.byteLength(c) + 1;
  }
  return Buffer.from(htmlPage({ ...base, extraBody: `<section class="product-grid row">\n${cards.join('\n')}\n</section>` }));
}

const rand = prng(42);
const pages = Array.from({ length: pageCount }, (_, i) => realisticPage(i, 20_000 + Math.floor(rand() * 180_000)));
const r = measureParseThroughput(pages, { rounds });
const sizes = pages.map((p) => p.length).sort((a, b) => a - b);
console.log(`${pages.length} pages, ${r.megabytes.toFixed(1)} MB (${(sizes[0] / 1000).toFixed(0)}-${(sizes.at(-1)! / 1000).toFixed(0)} KB), ${rounds} rounds`);
console.log(`raw parser (no-op callbacks): ${r.rawParserMBps.toFixed(1)} MB/s`);
console.log(`analyzer:                     ${r.analyzerMBps.toFixed(1)} MB/s`);
console.log(`ratio:                        ${r.ratio.toFixed(2)} (target >= 0.50; per round ${r.roundRatios.map((x) => x.toFixed(2)).join(' ')})`);
console.log(`bare parser (no handler):     ${r.bareParserMBps.toFixed(1)} MB/s (analyzer/bare ${(r.analyzerMBps / r.bareParserMBps).toFixed(2)})`);
