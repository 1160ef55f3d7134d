import { useState } from 'preact/hooks';
import { api, must, type Schemas } from '../api.ts';
import { setQuery, useLocation } from '../router.tsx';
import { Loading, PageTitle, Pager, ProblemBanner, Select, When, useAsync, usePager } from '../ui.tsx';
import { valueText } from './deploy.tsx';
import type { PageProps } from './index.tsx';

type Kind = Schemas['ActivityKind'];
/** spec/activity.tsp ActivityKind, in the words a person reads. */
const KINDS: Array<[Kind, string]> = [
  ['security', 'Security'],
  ['webhook', 'Webhooks'],
  ['connection', 'Connections'],
  ['billing', 'Billing'],
  ['digest', 'Digests'],
];
const isKind = (s: string | null): s is Kind => KINDS.some(([k]) => k === s);
const KIND_TEXT = Object.fromEntries(KINDS);

const ACTOR_TEXT: Record<Schemas['ActivityActor']['type'], string> = { user: 'User', api_key: 'API key', session: 'Signed in', system: 'System' };

/** The workspace's audit feed, newest first, by kind, a page at a time. */
export function ActivityPage({ workspace }: PageProps) {
  const { query } = useLocation();
  const kind = query.get('kind');
  const pager = usePager(kind ?? '');
  const feed = useAsync(() => must(api.GET('/v1/activity', { params: { query: { workspace_id: workspace.id, kind: isKind(kind) ? kind : undefined, limit: 50, cursor: pager.cursor } } })), [workspace.id, kind, pager.cursor]);
  return (
    <>
      <PageTitle>Activity</PageTitle>
      <p class="muted">Who did what in this workspace: security changes (kept for good), webhook deliveries and pauses, connections, limits and digests (kept 90 days).</p>
      <KindFilter key={kind ?? ''} kind={isKind(kind) ? kind : ''} />
      <ProblemBanner error={feed.error} />
      {!feed.data ? (
        feed.loading && <Loading what="activity" />
      ) : feed.data.data.length === 0 ? (
        <p>{isKind(kind) ? `No ${KIND_TEXT[kind].toLowerCase()} activity yet.` : 'No activity yet.'}</p>
      ) : (
        <div class="scroll" tabIndex={0} role="region" aria-label="Activity table">
          <table class="activity">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Kind</th>
                <th scope="col">What happened</th>
                <th scope="col">Who</th>
                <th scope="col">To what</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {feed.data.data.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <When iso={r.created_at} withSeconds />
                  </th>
                  <td>{KIND_TEXT[r.kind] ?? r.kind}</td>
                  <td>
                    <code>{r.action}</code>
                  </td>
                  <td>
                    {r.actor.label ?? <span class="muted">{ACTOR_TEXT[r.actor.type]}</span>}
                    {r.actor.label && <div class="muted">{ACTOR_TEXT[r.actor.type]}</div>}
                  </td>
                  <td>
                    {r.target ? (
                      <>
                        {r.target.type}
                        {r.target.id && (
                          <div>
                            <code class="muted">{r.target.id}</code>
                          </div>
                        )}
                      </>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td>
                    <Details details={r.details} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={feed.data?.meta.next_cursor} label="Activity" />
    </>
  );
}

/** Held in state: the page re-renders while the person chooses, and must not reset the select. */
function KindFilter(props: { kind: string }) {
  const [kind, setKind] = useState(props.kind);
  return (
    <form
      class="filters"
      aria-label="Filter activity"
      onSubmit={(e) => {
        e.preventDefault();
        setQuery({ kind });
      }}
    >
      <Select label="Kind" name="kind" value={kind} options={[['', 'Every kind'], ...KINDS]} onChange={(e) => setKind(e.currentTarget.value)} />
      <button type="submit" class="secondary">
        Apply filter
      </button>
    </form>
  );
}

function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="details-list">
      {entries.map(([k, v]) => (
        <li key={k}>
          <span class="muted">{k.replaceAll('_', ' ')}:</span> {valueText(v)}
        </li>
      ))}
    </ul>
  );
}
