// The page record of a check (the binding contract shared with the API and the orchestrator).
// The fetcher's caller fills the fetch fields; pageRecordFields() gives the HTML-derived ones.

import type { Schemas } from '../contract/index.ts';
import type { PageAnalysis } from './analyze-html.ts';

/** The page record of docs/api.md#page-records, as spec/site-checks.tsp declares it (`PageRecord`). */
export type PageRecord = Schemas['PageRecord'];

export type PageFetchFields = Pick<PageRecord, 'url' | 'finalUrl' | 'status' | 'redirects' | 'ttfbMs' | 'bytes' | 'blockedByRobotsTxt'>;
export type PageHtmlFields = Omit<PageRecord, keyof PageFetchFields>;

/** The contract's HTML-derived fields of an analysis (crawl-only extras such as links left out). */
export function pageRecordFields(a: PageAnalysis): PageHtmlFields {
  return {
    title: a.title,
    metaDescription: a.metaDescription,
    canonical: a.canonical,
    robots: a.robots,
    h1Count: a.h1Count,
    hreflang: a.hreflang,
    structuredDataTypes: a.structuredDataTypes,
    wordCount: a.wordCount,
    internalLinks: a.internalLinks,
  };
}
