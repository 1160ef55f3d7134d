// A report as plain text and as HTML: the two parts of a digest email, and the printable page of
// GET /v1/workspaces/{id}/report with `Accept: text/html`. Everything that came from a user or a
// website (names, URLs, commit refs, reasons) is escaped in the HTML.
import type { Report } from './report.ts';

const VERDICT: Record<Report['deploys'][number]['verdict'], string> = {
  regressions: 'regressions found',
  clean: 'nothing got worse',
  pending: 'check not finished yet',
  failed: 'check could not run',
  not_checked: 'not checked',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const pct = (r: number | null) => (r === null ? 'n/a' : `${r >= 0 ? '+' : ''}${(r * 100).toFixed(1)}%`);
const num = (n: number) => n.toLocaleString('en-US');

/** "Mon, 2 Nov 2026 09:00" in the workspace's zone. */
export function localTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

export function reportTitle(r: Report): string {
  return `${r.workspaceName}: ${localTime(r.from, r.timezone)} to ${localTime(r.to, r.timezone)}`;
}

interface Section {
  title: string;
  empty: string;
  items: Array<{ text: string; html: string; link: string }>;
}

function sections(r: Report): Section[] {
  const cause = (c: Report['newFindings'][number]['topCause'], explanation: string | null) => (c ? `likely cause: ${c.path} (${c.reason})` : explanation ? explanation : 'no deploy explains it');
  return [
    {
      title: 'Deploys',
      empty: 'No deploys.',
      items: r.deploys.map((d) => {
        const head = `${d.commitSha.slice(0, 12)} to ${d.environment}${d.ref ? ` (${d.ref})` : ''}, ${localTime(d.deployedAt, r.timezone)}: ${VERDICT[d.verdict]}${d.verdict === 'regressions' ? ` (${d.findings})` : ''}`;
        return { text: head, html: escapeHtml(head), link: d.link };
      }),
    },
    {
      title: 'New findings',
      empty: 'Nothing got worse.',
      items: r.newFindings.map((f) => ({ text: `[${f.severity}] ${f.kind} on ${f.url}; ${cause(f.topCause, f.explanation)}`, html: `<strong>${escapeHtml(f.severity)}</strong> ${escapeHtml(f.kind)} on ${escapeHtml(f.url)}; ${escapeHtml(cause(f.topCause, f.explanation))}`, link: f.link })),
    },
    {
      title: 'Resolved',
      empty: 'Nothing was resolved.',
      items: r.resolvedFindings.map((f) => {
        const t = `${f.kind} on ${f.url}${f.topCause ? ` (was caused by ${f.topCause.path})` : ''}`;
        return { text: t, html: escapeHtml(t), link: f.link };
      }),
    },
    {
      title: 'Pages that lost clicks',
      empty: 'No page lost search clicks.',
      items: r.lostClicks.map((p) => {
        const t = `${p.url}: ${num(p.clicks)} clicks, ${num(p.lostClicks)} fewer than the period before (${num(p.previousClicks)})`;
        return { text: t, html: escapeHtml(t), link: p.link };
      }),
    },
  ];
}

function searchLine(r: Report): string {
  const s = r.search;
  if (!s) return 'No search data for this period.';
  return `${num(s.current.clicks)} clicks (${pct(s.clicksChange)}) and ${num(s.current.impressions)} impressions (${pct(s.impressionsChange)}) on ${s.current.days} days from ${s.current.from} to ${s.current.to}, against ${num(s.previous.clicks)} clicks and ${num(s.previous.impressions)} impressions the ${s.previous.days} days before.`;
}

/** The plain-text form; `footer` lines (an unsubscribe link) go last. */
export function reportText(r: Report, footer: string[] = []): string {
  const out = [reportTitle(r), '', 'Search', searchLine(r), ''];
  for (const s of sections(r)) {
    out.push(s.title);
    if (s.items.length === 0) out.push(s.empty);
    for (const i of s.items) out.push(`- ${i.text}`, `  ${i.link}`);
    out.push('');
  }
  return [...out, ...footer].join('\n');
}

/** The HTML form: a whole printable page; `footer` is HTML (an unsubscribe link). */
export function reportHtml(r: Report, footer = ''): string {
  const body = sections(r)
    .map((s) => `<h2>${escapeHtml(s.title)}</h2>` + (s.items.length === 0 ? `<p>${escapeHtml(s.empty)}</p>` : `<ul>${s.items.map((i) => `<li>${i.html} <a href="${escapeHtml(i.link)}">details</a></li>`).join('')}</ul>`))
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(reportTitle(r))}</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#111}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem;border-bottom:1px solid #ddd}li{margin:.3rem 0}a{color:#0645ad}footer{margin-top:2rem;font-size:.85rem;color:#555}@media print{a{color:inherit}}</style>
</head><body>
<h1>${escapeHtml(reportTitle(r))}</h1>
<h2>Search</h2><p>${escapeHtml(searchLine(r))}</p>
${body}
${footer ? `<footer>${footer}</footer>` : ''}
</body></html>
`;
}
