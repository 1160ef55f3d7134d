// The detection corpus (npm run bench:detection): realistic single regressions, each on a small
// website built with one framework. One entry per scenario: the site in its baseline version, the
// regression applied to it, the finding it must produce (kind and URL), the deploy's true change
// and its decoys (written as diff lines; the SDK's CI analysis gives their category and signals),
// and the other findings the regression legitimately causes. The runner is bench/detection.ts.

import type { FindingKind } from '../../core/findings/index.ts';
import type { FileChange } from './detection/changes.ts';
import type { SiteModel, SitePatch } from './detection/site.ts';
import { CHECK_SCENARIOS } from './detection/check-scenarios.ts';
import { CRAWL_SCENARIOS } from './detection/crawl-scenarios.ts';
import { VANISH_SCENARIOS } from './detection/vanish-scenarios.ts';

export const FRAMEWORKS = {
  'nextjs-app': 'Next.js (app router)',
  'nextjs-pages': 'Next.js (pages router)',
  astro: 'Astro',
  nuxt: 'Nuxt',
  sveltekit: 'SvelteKit',
  hugo: 'Hugo',
  jekyll: 'Jekyll',
  django: 'Django',
  rails: 'Rails',
  html: 'plain HTML',
} as const;
export type Framework = keyof typeof FRAMEWORKS;

export interface ExpectedFinding {
  kind: FindingKind;
  /** Path (and query) on the fixture site. */
  url: string;
}

export interface Scenario {
  /** Short, unique: `<framework>-<what>`. */
  id: string;
  framework: Framework;
  /** What went wrong, as a person would tell it. */
  description: string;
  /** The site before the deploy (home plus 5 to 10 pages). */
  site: SiteModel;
  /** What the deploy did to the site. */
  regression: SitePatch;
  /** The one finding the regression must produce (a check kind in `findings`, a crawl kind in `crawlFindings`). */
  expect: ExpectedFinding;
  /** The changed file that caused it. */
  trueChange: FileChange;
  /** Other files of the same deploy, 2 to 4; at least one shares the true change's category or a signal kind (not both) and has a path unlike the URL. */
  decoys: FileChange[];
  /** Other findings this regression legitimately causes (anything else is a false positive), and why. */
  consequences: Array<ExpectedFinding & { why: string }>;
}

export const CORPUS: readonly Scenario[] = [...CHECK_SCENARIOS, ...CRAWL_SCENARIOS, ...VANISH_SCENARIOS];
