import { useEffect, useState } from 'preact/hooks';
import { api, must } from '../api.ts';
import { Loading, PageTitle, ProblemBanner, SeverityPill, StatePill, When, useAsync } from '../ui.tsx';
import { kindText, valueText } from './deploy.tsx';
import type { PageProps } from './index.tsx';

const LIVE_MS = 3_000;

/** The site as the latest finished check and crawl saw it: every issue now, and what got worse. */
export function HealthPage({ workspace }: PageProps) {
  const check = useAsync(() => must(api.GET('/v1/site-checks/latest', { params: { query: { workspace_id: workspace.id } } })), [workspace.id]);
  const crawl = useAsync(() => must(api.GET('/v1/site-crawls/latest', { params: { query: { workspace_id: workspace.id } } })), [workspace.id]);
  const [error, setError] = useState<unknown>(null);
  const pending = (s: string | undefined) => s === 'queued' || s === 'running';
  const running = pending(check.data?.latest?.state) || pending(crawl.data?.latest?.state);
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(() => {
      check.reload();
      crawl.reload();
    }, LIVE_MS);
    return () => clearTimeout(t);
  }, [check.data, crawl.data, running]);

  const runNow = (what: 'check' | 'crawl') => async () => {
    setError(null);
    try {
      if (what === 'check') await must(api.POST('/v1/site-checks', { body: { workspaceId: workspace.id } }));
      else await must(api.POST('/v1/site-crawls', { body: { workspaceId: workspace.id } }));
      (what === 'check' ? check : crawl).reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <PageTitle>Site health now</PageTitle>
      <p class="muted">
        <a href={workspace.website} rel="noreferrer noopener" target="_blank">
          {workspace.website}
        </a>
      </p>
      <div class="actions">
        <button type="button" onClick={runNow('check')} disabled={pending(check.data?.latest?.state)}>
          Run a site check now
        </button>
        <button type="button" class="secondary" onClick={runNow('crawl')} disabled={pending(crawl.data?.latest?.state)}>
          Run a crawl now
        </button>
      </div>
      <ProblemBanner error={error} />
      <section aria-labelledby="check-h">
        <h2 id="check-h">Latest site check</h2>
        <ProblemBanner error={check.error} />
        {!check.data ? (
          <Loading what="the latest check" />
        ) : !check.data.check ? (
          <p class="muted">
            No finished check yet. {check.data.latest && <StatePill state={check.data.latest.state} />}
          </p>
        ) : (
          <>
            <p aria-live="polite">
              Finished <When iso={check.data.check?.finishedAt} />
              {check.data.latest && check.data.latest.id !== check.data.check?.id && (
                <>
                  {' '}
                  · newer check <StatePill state={check.data.latest.state} />
                </>
              )}
            </p>
            <h3>Got worse since the check before ({check.data.findings.length})</h3>
            {check.data.findings.length === 0 ? (
              <p class="good">Nothing got worse.</p>
            ) : (
              <ul class="issues">
                {check.data.findings.map((f) => (
                  <li key={`${f.kind} ${f.url}`}>
                    <SeverityPill severity={f.severity} /> {kindText(f.kind)} on {f.url}: {valueText(f.before)} → {valueText(f.after)}
                  </li>
                ))}
              </ul>
            )}
            <h3>Issues now ({check.data.issues.length})</h3>
            {check.data.issues.length === 0 ? (
              <p class="good">No issues on the checked pages.</p>
            ) : (
              <ul class="issues">
                {check.data.issues.map((i) => (
                  <li key={`${i.kind} ${i.url}`}>
                    <SeverityPill severity={i.severity} /> {kindText(i.kind)} on {i.url}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </section>
      <section aria-labelledby="crawl-h">
        <h2 id="crawl-h">Latest crawl</h2>
        <ProblemBanner error={crawl.error} />
        {!crawl.data ? (
          <Loading what="the latest crawl" />
        ) : !crawl.data.crawl ? (
          <p class="muted">
            No finished crawl yet. {crawl.data.latest && <StatePill state={crawl.data.latest.state} />}
          </p>
        ) : (
          <>
            <p>
              {crawl.data.crawl.pagesCrawled} pages, finished <When iso={crawl.data.crawl.finishedAt} />
            </p>
            <h3>New since the crawl before ({crawl.data.findings.length})</h3>
            {crawl.data.findings.length === 0 ? (
              <p class="good">Nothing new.</p>
            ) : (
              <ul class="issues">
                {crawl.data.findings.map((f, n) => (
                  <li key={n}>
                    <SeverityPill severity={f.severity} /> {kindText(f.kind)} on {f.url}
                  </li>
                ))}
              </ul>
            )}
            <h3>Issues now ({crawl.data.issues.length})</h3>
            {crawl.data.issues.length === 0 ? (
              <p class="good">No issues.</p>
            ) : (
              <ul class="issues">
                {crawl.data.issues.map((f, n) => (
                  <li key={n}>
                    <SeverityPill severity={f.severity} /> {kindText(f.kind)} on {f.url}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </section>
    </>
  );
}
