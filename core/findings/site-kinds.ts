import type { Schemas } from '../contract/index.ts';

// Site-level check kinds: what only monitoring between deploys can catch, judged on facts about
// the site rather than one page (the certificate, robots.txt, the sitemap). Same shape as the page
// kinds of check-kinds.ts: a severity, `worse` (a finding against the baseline) and `wrong` (an
// issue on its own). Thresholds: the table on CheckFindingKind in spec/site-checks.tsp.

/** What a check saw of the site as a whole, stored with it (site_checks.site). */
export interface SiteFacts {
  /** When the check looked (epoch ms). */
  checkedAt: number;
  /** The home page that answered. */
  home: string;
  /** https: when the home page's certificate stops being valid (epoch ms); null for http or no answer. */
  certificateValidTo: number | null;
  robotsUrl: string | null;
  /** robots.txt's text (2xx only, at most ROBOTS_TEXT_KEPT characters), or null. */
  robotsText: string | null;
  /** The first sitemap read, or null. */
  sitemapUrl: string | null;
  /** The sitemap's URLs, sorted, at most SITEMAP_URLS_KEPT; null when no sitemap could be read. */
  sitemapUrls: string[] | null;
}

export const CERTIFICATE_EXPIRING_MS = 14 * 24 * 3_600_000;
export const ROBOTS_TEXT_KEPT = 20_000;
export const SITEMAP_URLS_KEPT = 1000;

export interface SiteJudgement {
  /** When the check looked (epoch ms). */
  checkedAt: number;
  /** Production deploys recorded between the baseline and the check. */
  deploysBetween: number;
}

export interface SiteKindRule {
  kind: Schemas['CheckFindingKind'];
  severity: Schemas['Severity'];
  url(f: SiteFacts): string | null;
  worse(before: SiteFacts, after: SiteFacts, j: SiteJudgement): boolean;
  wrong?(f: SiteFacts, checkedAt: number): boolean;
  explain(f: SiteFacts, other: SiteFacts | null): unknown;
}

const expiring = (f: SiteFacts, at: number) => f.certificateValidTo !== null && f.certificateValidTo - at < CERTIFICATE_EXPIRING_MS;
const clip = (s: string | null) => (s === null ? null : s.length > 500 ? `${s.slice(0, 500)}…` : s);

export const SITE_KINDS: readonly SiteKindRule[] = [
  {
    kind: 'certificate_expiring',
    severity: 'high',
    url: (f) => f.home,
    // Once per certificate: when it enters the window (the baseline saw it outside, or another one).
    worse: (b, a, j) => expiring(a, j.checkedAt) && !(b.certificateValidTo === a.certificateValidTo && expiring(b, b.checkedAt)),
    wrong: (f, at) => expiring(f, at),
    explain: (f) => (f.certificateValidTo === null ? null : `valid until ${new Date(f.certificateValidTo).toISOString()}`),
  },
  {
    kind: 'robots_txt_changed',
    severity: 'high',
    url: (f) => f.robotsUrl,
    worse: (b, a, j) => j.deploysBetween === 0 && a.robotsUrl !== null && b.robotsText !== a.robotsText,
    explain: (f) => clip(f.robotsText),
  },
  {
    kind: 'sitemap_changed',
    severity: 'medium',
    url: (f) => f.sitemapUrl,
    worse: (b, a, j) =>
      j.deploysBetween === 0 && b.sitemapUrls !== null && a.sitemapUrls !== null && a.sitemapUrl !== null && b.sitemapUrls.join('\n') !== a.sitemapUrls.join('\n'),
    explain: (f, other) => {
      if (f.sitemapUrls === null) return null;
      const mine = new Set(f.sitemapUrls);
      const theirs = new Set(other?.sitemapUrls ?? []);
      const added = f.sitemapUrls.filter((u) => !theirs.has(u)).length;
      const removed = [...theirs].filter((u) => !mine.has(u)).length;
      return other ? `${f.sitemapUrls.length} URLs (${added} added, ${removed} removed)` : `${f.sitemapUrls.length} URLs`;
    },
  },
];

/** Site-level findings of a check against its baseline's facts (none without them). */
export function compareSites(before: SiteFacts | null, after: SiteFacts, j: SiteJudgement): Schemas['Finding'][] {
  if (!before) return [];
  return SITE_KINDS.filter((r) => r.url(after) !== null && r.worse(before, after, j)).map((r) => ({
    kind: r.kind,
    severity: r.severity,
    url: r.url(after)!,
    before: r.explain(before, null),
    after: r.explain(after, before),
    clicks: 0,
  }));
}

/** Site-level issues of one check alone. */
export function judgeSite(f: SiteFacts, checkedAt: number): Schemas['SiteCheckIssue'][] {
  return SITE_KINDS.filter((r) => r.url(f) !== null && r.wrong?.(f, checkedAt)).map((r) => ({ kind: r.kind, severity: r.severity, url: r.url(f)!, value: r.explain(f, null) }));
}
