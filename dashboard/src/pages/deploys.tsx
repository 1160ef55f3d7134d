import { useEffect, useState } from 'preact/hooks';
import { categorize } from '../../../sdk/src/signals/categorize.ts';
import { api, must, type Schemas } from '../api.ts';
import { Link, navigate, setQuery, useLocation } from '../router.tsx';
import { Field, Loading, TextArea, PageTitle, Pager, ProblemBanner, Select, StatePill, When, useAsync, useForm, usePager } from '../ui.tsx';
import type { PageProps } from './index.tsx';

type Source = Schemas['DeploySource'];
const SOURCES: Array<[Source, string]> = [
  ['cli', 'CLI (with changes)'],
  ['webhook', 'API (no changes)'],
  ['manual', 'Recorded by hand'],
  ['github', 'GitHub'],
  ['gitlab', 'GitLab'],
];
const isSource = (s: string | null): s is Source => SOURCES.some(([v]) => v === s);
const SOURCE_TEXT = Object.fromEntries(SOURCES);

/** How often the list asks again while one of its checks is queued or running. */
const LIVE_MS = 2_000;

export const shortSha = (sha: string) => sha.slice(0, 7);

/** Deploys newest first, filtered by environment and source, a page at a time, live while checks run. */
export function DeploysPage({ workspace }: PageProps) {
  const { query } = useLocation();
  const environment = query.get('environment') ?? '';
  const source = query.get('source');
  const pager = usePager(`${environment}|${source}`);
  const deploys = useAsync(
    () =>
      must(
        api.GET('/v1/deploys', {
          params: { query: { workspace_id: workspace.id, environment: environment || undefined, source: isSource(source) ? source : undefined, limit: 25, cursor: pager.cursor } },
        }),
      ),
    [workspace.id, environment, source, pager.cursor],
  );
  const running = deploys.data?.data.some((d) => d.siteCheck?.state === 'queued' || d.siteCheck?.state === 'running');
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(deploys.reload, LIVE_MS);
    return () => clearTimeout(t);
  }, [deploys.data, running]);

  return (
    <>
      <div class="title-row">
        <PageTitle>Deploys</PageTitle>
        <Link class="button" href={`/w/${workspace.id}/deploys/new`}>
          Record deploy
        </Link>
      </div>
      <DeployFilters environment={environment} source={source ?? ''} />
      <ProblemBanner error={deploys.error} />
      {!deploys.data ? (
        <Loading what="deploys" />
      ) : deploys.data.data.length === 0 ? (
        <p>{environment || source ? 'No deploys match these filters.' : 'No deploys yet. Record one by hand, or from CI with the sitehealth CLI.'}</p>
      ) : (
        <div class="scroll" tabIndex={0} role="region" aria-label="Deploys table">
          <table class="deploys">
            <thead>
              <tr>
                <th scope="col">Commit</th>
                <th scope="col">Deployed</th>
                <th scope="col">Environment</th>
                <th scope="col">Source</th>
                <th scope="col">Check</th>
                <th scope="col">New findings</th>
              </tr>
            </thead>
            <tbody aria-live="polite">
              {deploys.data.data.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <Link href={`/w/${workspace.id}/deploys/${d.id}`}>
                      <code>{shortSha(d.commitSha)}</code>
                    </Link>
                    {d.message && <div class="muted clip">{d.message}</div>}
                  </th>
                  <td>
                    <When iso={d.deployedAt} />
                  </td>
                  <td>{d.environment}</td>
                  <td>{SOURCE_TEXT[d.source] ?? d.source}</td>
                  <td>
                    <StatePill state={d.siteCheck?.state} />
                  </td>
                  <td class="num">{d.newFindingCount === null ? <span class="muted">—</span> : <span class={d.newFindingCount > 0 ? 'bad' : 'good'}>{d.newFindingCount}</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={deploys.data?.meta.next_cursor} label="Deploys" />
    </>
  );
}

/** Held in state: the list re-renders (live updates) while the person chooses, and must not reset the fields. */
function DeployFilters(props: { environment: string; source: string }) {
  const [environment, setEnvironment] = useState(props.environment);
  const [source, setSource] = useState(props.source);
  return (
    <form
      class="filters"
      aria-label="Filter deploys"
      onSubmit={(e) => {
        e.preventDefault();
        setQuery({ environment: environment.trim(), source });
      }}
    >
      <Field label="Environment" name="environment" value={environment} placeholder="any" maxLength={32} onInput={(e) => setEnvironment(e.currentTarget.value)} />
      <Select label="Source" name="source" value={source} options={[['', 'Any'], ...SOURCES]} onChange={(e) => setSource(e.currentTarget.value)} />
      <button type="submit" class="secondary">
        Apply filters
      </button>
    </form>
  );
}

const CATEGORIES: Schemas['ChangeCategory'][] = ['template', 'component', 'page', 'style', 'script', 'content', 'config', 'routing', 'redirects', 'robots', 'sitemap', 'headers', 'dependencies', 'asset', 'server', 'build', 'test', 'docs', 'other'];
const isCategory = (s: string): s is Schemas['ChangeCategory'] => CATEGORIES.some((c) => c === s);

/**
 * "path" or "path category" per line; without a category the SDK's own classifier names it, as
 * the CLI would.
 */
function parseChanges(text: string): Schemas['Change'][] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [path, category] = line.split(/\s+/, 2);
      return { path, category: category && isCategory(category) ? category : categorize(path) };
    });
}

/** Records a deploy as the person signed in: the API stores it with source `manual`. */
export function RecordDeployPage({ workspace }: PageProps) {
  const f = useForm();
  return (
    <>
      <PageTitle>Record a deploy</PageTitle>
      <p class="muted">A production deploy is checked about two minutes after it went live, and crawled after five.</p>
      <form
        aria-label="Record a deploy"
        onSubmit={f.submit(async (d) => {
          const text = (k: string) => String(d.get(k) ?? '').trim() || undefined;
          const changes = parseChanges(String(d.get('changes') ?? ''));
          const deploy = await must(
            api.POST('/v1/deploys', {
              body: { workspaceId: workspace.id, commitSha: String(d.get('commitSha') ?? '').trim(), environment: text('environment'), ref: text('ref'), message: text('message'), changes: changes.length ? changes : undefined },
            }),
          );
          navigate(`/w/${workspace.id}/deploys/${deploy.id}`);
        })}
      >
        <Field label="Commit SHA" name="commitSha" required autoComplete="off" spellcheck={false} hint="7 to 64 hexadecimal characters." error={f.errorFor('/commitSha')} />
        <Field label="Environment" name="environment" value="production" maxLength={32} error={f.errorFor('/environment')} />
        <Field label="Branch or tag" name="ref" maxLength={255} error={f.errorFor('/ref')} />
        <Field label="Message" name="message" maxLength={2000} error={f.errorFor('/message')} />
        <TextArea label="Changed files" name="changes" hint={`One path per line, optionally followed by its category (${CATEGORIES.join(', ')}). Up to 500.`} error={f.errorFor('/changes')} />
        <ProblemBanner error={f.formError(['/commitSha', '/environment', '/ref', '/message', '/changes'])} />
        <button type="submit" disabled={f.busy}>
          Record deploy
        </button>
      </form>
    </>
  );
}

/** A deploy's changes also show on its page; the list's short form is shared. */
export function SourceText({ source }: { source: Source }) {
  return <>{SOURCE_TEXT[source] ?? source}</>;
}
