import { useEffect, useMemo } from 'preact/hooks';
import { api, must, type Schemas } from '../api.ts';
import { Chart, COLORS, groupedBars } from '../chart.tsx';
import { Link } from '../router.tsx';
import { Loading, PageTitle, ProblemBanner, SeverityPill, StatePill, When, useAsync } from '../ui.tsx';
import { SourceText, shortSha } from './deploys.tsx';
import type { PageProps } from './index.tsx';

type Detail = Schemas['DeployDetail'];
type Issue = Schemas['SiteCheckIssue'];

export const kindText = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1).replaceAll('_', ' ');

export function valueText(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const LIVE_MS = 2_000;
const live = (s: Schemas['RunState'] | undefined) => s === 'queued' || s === 'running';

/**
 * One deploy: its changed files, what got worse (new), what stayed bad (persisting) and what got
 * better (resolved) with each finding's ranked causes, the crawl's findings, and the search
 * traffic before and after. Live while its check or crawl runs.
 */
export function DeployPage({ workspace, params }: PageProps) {
  const detail = useAsync(() => must(api.GET('/v1/deploys/{id}', { params: { path: { id: params.id } } })), [params.id]);
  const d = detail.data;
  // The baseline's own issues tell persisting from resolved (GET /v1/site-checks/{id}).
  const baselineId = d?.baseline?.id;
  const baseline = useAsync(() => (baselineId ? must(api.GET('/v1/site-checks/{id}', { params: { path: { id: baselineId } } })) : Promise.resolve(null)), [baselineId]);
  const running = live(d?.siteCheck?.state) || live(d?.siteCrawl?.state);
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(detail.reload, LIVE_MS);
    return () => clearTimeout(t);
  }, [d, running]);

  if (detail.error && !d) return <ProblemBanner error={detail.error} />;
  if (!d) return <Loading what="the deploy" />;
  return (
    <>
      <PageTitle>
        Deploy <code>{shortSha(d.commitSha)}</code> to {d.environment}
      </PageTitle>
      <dl class="facts">
        <dt>Deployed</dt>
        <dd>
          <When iso={d.deployedAt} />
        </dd>
        <dt>Commit</dt>
        <dd>
          <code>{d.commitSha}</code>
        </dd>
        {d.ref && (
          <>
            <dt>Branch or tag</dt>
            <dd>{d.ref}</dd>
          </>
        )}
        {d.message && (
          <>
            <dt>Message</dt>
            <dd>{d.message}</dd>
          </>
        )}
        <dt>Source</dt>
        <dd>
          <SourceText source={d.source} />
          {d.ciRunUrl && (
            <>
              {' · '}
              <a href={d.ciRunUrl} rel="noreferrer noopener" target="_blank">
                CI run
              </a>
            </>
          )}
        </dd>
        <dt>Site check</dt>
        <dd aria-live="polite">
          <StatePill state={d.siteCheck?.state} /> {d.siteCheck?.finishedAt && <When iso={d.siteCheck.finishedAt} />}
          {d.siteCheck?.error && <span class="bad"> {d.siteCheck.error}</span>}
          {d.siteCheck?.renderingNote && <div class="muted">{d.siteCheck.renderingNote}</div>}
        </dd>
        <dt>Crawl</dt>
        <dd aria-live="polite">
          <StatePill state={d.siteCrawl?.state} /> {d.siteCrawl?.state === 'finished' && <span class="muted">{d.siteCrawl.pagesCrawled} pages</span>}
        </dd>
      </dl>
      <ProblemBanner error={detail.error} />
      <Findings d={d} baselineIssues={baseline.data?.issues ?? null} />
      <CrawlFindings d={d} />
      <ImpactSection impact={d.impact} />
      <Changes changes={d.changes} truncatedNote={d.changesTruncated ? d.changesNote : null} />
      <p>
        <Link href={`/w/${workspace.id}/deploys`}>All deploys</Link>
      </p>
    </>
  );
}

const key = (f: { kind: string; url: string }) => `${f.kind} ${f.url}`;

function Findings({ d, baselineIssues }: { d: Detail; baselineIssues: Issue[] | null }) {
  const { persisting, resolved } = useMemo(() => {
    const current = new Set(d.issues.map(key));
    const fresh = new Set(d.findings.map(key));
    const before = baselineIssues ? new Set(baselineIssues.map(key)) : null;
    return {
      persisting: before ? d.issues.filter((i) => before.has(key(i)) && !fresh.has(key(i))) : [],
      resolved: baselineIssues ? baselineIssues.filter((i) => !current.has(key(i))) : [],
    };
  }, [d, baselineIssues]);
  if (d.siteCheck?.state !== 'finished') {
    return (
      <section aria-labelledby="findings-h">
        <h2 id="findings-h">Findings</h2>
        <p class="muted">{d.siteCheck ? 'The site check has not finished yet; this page updates by itself.' : 'This deploy did not trigger a site check (only production deploys do).'}</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="findings-h">
      <h2 id="findings-h">Findings</h2>
      <h3>New ({d.findings.length})</h3>
      {d.findings.length === 0 ? (
        <p class="good">Nothing got worse since the previous check.</p>
      ) : (
        <ol class="findings">
          {d.findings.map((f) => (
            <li key={key(f)} class="finding">
              <div class="finding-head">
                <SeverityPill severity={f.severity} /> <strong>{kindText(f.kind)}</strong> on <a href={f.url} rel="noreferrer noopener" target="_blank">{f.url}</a>
                {f.clicks !== null && f.clicks > 0 && <span class="muted"> · {f.clicks.toLocaleString()} search clicks</span>}
              </div>
              <p class="before-after">
                <span>Before: {valueText(f.before)}</span> <span aria-hidden="true">→</span> <span>After: {valueText(f.after)}</span>
              </p>
              <Causes causes={f.causes} explanation={f.explanation} />
            </li>
          ))}
        </ol>
      )}
      {d.issues.length > 0 && d.findings.length === 0 && persisting.length === 0 && baselineIssues === null && <p class="muted">The check still sees {d.issues.length} issues.</p>}
      <h3>Persisting ({persisting.length})</h3>
      {persisting.length === 0 ? <p class="muted">None.</p> : <IssueList issues={persisting} />}
      <h3>Resolved ({resolved.length})</h3>
      {resolved.length === 0 ? <p class="muted">None.</p> : <IssueList issues={resolved} />}
    </section>
  );
}

function IssueList({ issues }: { issues: Issue[] }) {
  return (
    <ul class="issues">
      {issues.map((i) => (
        <li key={key(i)}>
          <SeverityPill severity={i.severity} /> {kindText(i.kind)} on {i.url}
          {i.value !== null && i.value !== undefined && <span class="muted"> ({valueText(i.value)})</span>}
        </li>
      ))}
    </ul>
  );
}

function Causes({ causes, explanation }: { causes: Schemas['Cause'][]; explanation: string | null }) {
  if (causes.length === 0) return <p class="muted">{explanation ?? 'No changed file of this deploy explains it.'}</p>;
  return (
    <>
      {explanation && <p class="muted">{explanation}</p>}
      <ol class="causes" aria-label="Likely causes, most likely first">
        {causes.map((c) => (
          <li key={c.path}>
            <code>{c.path}</code> <span class="muted">({c.category}, score {c.score.toFixed(2)})</span>
            <div>{c.reason}</div>
          </li>
        ))}
      </ol>
    </>
  );
}

function CrawlFindings({ d }: { d: Detail }) {
  if (!d.siteCrawl) return null;
  return (
    <section aria-labelledby="crawl-h">
      <h2 id="crawl-h">Crawl findings ({d.crawlFindings.length})</h2>
      {d.siteCrawl.state !== 'finished' ? (
        <p class="muted">The crawl has not finished yet.</p>
      ) : d.crawlFindings.length === 0 ? (
        <p class="good">The crawl found nothing new.</p>
      ) : (
        <ol class="findings">
          {d.crawlFindings.map((f, i) => (
            <li key={i} class="finding">
              <div class="finding-head">
                <SeverityPill severity={f.severity} /> <strong>{kindText(f.kind)}</strong> on {f.url}
              </div>
              {Object.keys(f.details ?? {}).length > 0 && <p class="muted">{Object.entries(f.details).map(([k, v]) => `${k}: ${valueText(v)}`).join(' · ')}</p>}
              <Causes causes={f.causes} explanation={f.explanation} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

const pct = (v: number | null) => (v === null ? '—' : `${v > 0 ? '+' : ''}${(v * 100).toFixed(1)}%`);

function ImpactSection({ impact }: { impact: Schemas['Impact'] | null }) {
  const chart = useMemo(() => {
    if (!impact) return null;
    const p = impact.pages;
    if (!p) {
      return groupedBars(
        ['Before', 'After'],
        [
          { label: 'Clicks', scale: 'clicks', color: COLORS.primary, values: [impact.before.clicks, impact.after.clicks] },
          { label: 'Impressions', scale: 'impressions', color: COLORS.secondary, values: [impact.before.impressions, impact.after.impressions] },
        ],
      );
    }
    return groupedBars(
      ['Key pages, before', 'Key pages, after', 'Other pages, before', 'Other pages, after'],
      [
        { label: 'Clicks', scale: 'clicks', color: COLORS.primary, values: [p.affected.before.clicks, p.affected.after.clicks, p.rest.before.clicks, p.rest.after.clicks] },
        { label: 'Impressions', scale: 'impressions', color: COLORS.secondary, values: [p.affected.before.impressions, p.affected.after.impressions, p.rest.before.impressions, p.rest.after.impressions] },
      ],
    );
  }, [impact]);
  return (
    <section aria-labelledby="impact-h">
      <h2 id="impact-h">Search traffic</h2>
      {!impact ? (
        <p class="muted">No final search data for a full day after this deploy yet.</p>
      ) : (
        <>
          <p>
            {impact.days} days before ({impact.before.from} to {impact.before.to}) against {impact.days} days after ({impact.after.from} to {impact.after.to}){impact.partial ? ', partial: some days have no data yet' : ''}. Clicks {pct(impact.change.clicks)}, impressions {pct(impact.change.impressions)}.
          </p>
          {chart && <Chart label={impact.pages ? 'Search clicks and impressions before and after the deploy, key pages against the other pages' : 'Search clicks and impressions before and after the deploy'} options={chart.options} data={chart.data} />}
          <table class="impact">
            <caption class="muted">Clicks and impressions before and after</caption>
            <thead>
              <tr>
                <th scope="col">Pages</th>
                <th scope="col">Clicks before</th>
                <th scope="col">Clicks after</th>
                <th scope="col">Impressions before</th>
                <th scope="col">Impressions after</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">All pages</th>
                <td class="num">{impact.before.clicks.toLocaleString()}</td>
                <td class="num">{impact.after.clicks.toLocaleString()}</td>
                <td class="num">{impact.before.impressions.toLocaleString()}</td>
                <td class="num">{impact.after.impressions.toLocaleString()}</td>
              </tr>
              {impact.pages && (
                <>
                  <tr>
                    <th scope="row">Key pages (named by findings: {impact.pages.affected.urls.length})</th>
                    <td class="num">{impact.pages.affected.before.clicks.toLocaleString()}</td>
                    <td class="num">{impact.pages.affected.after.clicks.toLocaleString()}</td>
                    <td class="num">{impact.pages.affected.before.impressions.toLocaleString()}</td>
                    <td class="num">{impact.pages.affected.after.impressions.toLocaleString()}</td>
                  </tr>
                  <tr>
                    <th scope="row">Other pages</th>
                    <td class="num">{impact.pages.rest.before.clicks.toLocaleString()}</td>
                    <td class="num">{impact.pages.rest.after.clicks.toLocaleString()}</td>
                    <td class="num">{impact.pages.rest.before.impressions.toLocaleString()}</td>
                    <td class="num">{impact.pages.rest.after.impressions.toLocaleString()}</td>
                  </tr>
                </>
              )}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function Changes({ changes, truncatedNote }: { changes: Schemas['Change'][]; truncatedNote: string | null }) {
  return (
    <section aria-labelledby="changes-h">
      <h2 id="changes-h">Changed files ({changes.length})</h2>
      {truncatedNote && <p class="muted">{truncatedNote}</p>}
      {changes.length === 0 ? (
        <p class="muted">This deploy was recorded without its changed files.</p>
      ) : (
        <div class="scroll" tabIndex={0} role="region" aria-label="Changed files table">
          <table class="changes">
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col">Category</th>
                <th scope="col">Signals</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((c) => (
                <tr key={c.path}>
                  <td>
                    <code>{c.path}</code>
                  </td>
                  <td>{c.category}</td>
                  <td>{(c.signals ?? []).map((s) => `${s.kind.replaceAll('_', ' ')} ${s.change}${s.line ? ` (line ${s.line})` : ''}`).join(', ') || <span class="muted">none</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
