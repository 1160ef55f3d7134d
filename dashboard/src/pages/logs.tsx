import { useMemo, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { ApiProblem, api, must, type Schemas } from '../api.ts';
import { COLORS, Chart } from '../chart.tsx';
import { setQuery, useLocation } from '../router.tsx';
import { Field, Loading, PageTitle, Pager, ProblemBanner, Select, When, useAsync, usePager, useWorkspace } from '../ui.tsx';
import type { PageProps } from './index.tsx';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const isMethod = (s: string | null): s is Method => METHODS.some((m) => m === s);
const isStatus = (s: string | null): s is 'success' | 'failed' => s === 'success' || s === 'failed';
const DAYS = ['1', '7', '14', '30'];
/** A whole number from the address, or undefined: the API judges its range and says so next to the field. */
const int = (s: string | null) => (s && /^\d{1,9}$/.test(s) ? Number(s) : undefined);
const FILTERS = ['days', 'status', 'method', 'status_code', 'route', 'q'] as const;
type Filters = Record<(typeof FILTERS)[number], string | null>;

/**
 * The workspace's API requests (spec/logs.tsp): filters kept in the address so a view can be
 * shared or reloaded, the window's requests and errors as a chart and a table, and the rows a page
 * at a time.
 */
export function LogsPage({ workspace }: PageProps) {
  const { query } = useLocation();
  const f: Filters = { days: query.get('days'), status: query.get('status'), method: query.get('method'), status_code: query.get('status_code'), route: query.get('route'), q: query.get('q') };
  const days = int(f.days) ?? 7;
  const filterKey = FILTERS.map((k) => f[k] ?? '').join('|');
  const pager = usePager(filterKey);
  const logs = useAsync(
    () =>
      must(
        api.GET('/v1/logs', {
          params: {
            query: {
              workspace_id: workspace.id,
              days,
              status: isStatus(f.status) ? f.status : undefined,
              method: isMethod(f.method) ? f.method : undefined,
              status_code: int(f.status_code),
              route: f.route || undefined,
              q: f.q || undefined,
              limit: 50,
              cursor: pager.cursor,
            },
          },
        }),
      ),
    [workspace.id, filterKey, pager.cursor],
  );
  const fieldError = (name: string) => (logs.error instanceof ApiProblem ? logs.error.fieldError(`/${name}`) : undefined);
  // A problem whose every field error shows next to its filter needs no banner of its own.
  const fieldErrors = logs.error instanceof ApiProblem ? (logs.error.problem?.errors ?? []) : [];
  const problem = fieldErrors.length > 0 && fieldErrors.every((e) => FILTERS.some((k) => e.path === `/${k}`)) ? null : logs.error;
  const filtered = FILTERS.some((k) => k !== 'days' && f[k]);
  const meta = logs.data?.meta;

  return (
    <>
      <PageTitle>Request logs</PageTitle>
      <p class="muted">Requests made to the API for this workspace, by anyone and any key, kept 30 days.</p>
      <LogFilters key={filterKey} values={f} days={days} fieldError={fieldError} />
      <ProblemBanner error={problem} />
      {logs.error && !problem && <p class="problem">Correct the marked filters.</p>}
      {meta && (
        <section aria-labelledby="traffic-h">
          <h2 id="traffic-h">{days === 1 ? 'Requests in the last 24 hours' : `Requests in the last ${days} days`}</h2>
          <dl class="totals">
            <div>
              <dt>Requests</dt>
              <dd>{meta.total.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Errors (status 400 or more)</dt>
              <dd class={meta.errors > 0 ? 'bad' : undefined}>{meta.errors.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Error rate</dt>
              <dd>{meta.total ? `${((meta.errors / meta.total) * 100).toFixed(1)}%` : '—'}</dd>
            </div>
          </dl>
          <BucketsChart buckets={meta.buckets} hourly={days === 1} />
          <BucketsTable buckets={meta.buckets} hourly={days === 1} />
        </section>
      )}
      <section aria-labelledby="rows-h">
        <h2 id="rows-h">Requests</h2>
        {!logs.data ? (
          logs.loading && <Loading what="request logs" />
        ) : logs.data.data.length === 0 ? (
          <p>{filtered ? 'No requests match these filters.' : 'No requests in this window.'}</p>
        ) : (
          <div class="scroll" tabIndex={0} role="region" aria-label="Requests table">
            <table class="logs">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Method</th>
                  <th scope="col">Path</th>
                  <th scope="col">Status</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {logs.data.data.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <When iso={r.created_at} withSeconds />
                    </th>
                    <td>{r.method}</td>
                    <td>
                      <code>{r.path}</code>
                      {r.route && r.route !== r.path && <div class="muted">{r.route}</div>}
                    </td>
                    <td class={`num ${r.status_code >= 400 ? 'bad' : 'good'}`}>{r.status_code}</td>
                    <td class="num">{r.duration_ms} ms</td>
                    <td>{r.error_message ?? <span class="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager pager={pager} nextCursor={logs.data?.meta.next_cursor} label="Requests" />
      </section>
    </>
  );
}

/**
 * The filter form; it starts from the address and writes back to it on "Apply filters". What the
 * person chose is held in state: the page re-renders while they choose (the list loading) and
 * must not put the address's values back into the fields.
 */
function LogFilters({ values, days, fieldError }: { values: Filters; days: number; fieldError: (name: string) => string | undefined }) {
  const [draft, setDraft] = useState<Record<(typeof FILTERS)[number], string>>({
    days: String(days),
    status: isStatus(values.status) ? values.status : '',
    method: isMethod(values.method) ? values.method : '',
    status_code: values.status_code ?? '',
    route: values.route ?? '',
    q: values.q ?? '',
  });
  const on = (k: (typeof FILTERS)[number]) => (e: { currentTarget: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.currentTarget.value }));
  const dayOptions: Array<[string, string]> = [...new Set([...DAYS, String(days)])].sort((a, b) => Number(a) - Number(b)).map((d) => [d, d === '1' ? 'Last 24 hours' : `Last ${d} days`]);
  return (
    <form
      class="filters"
      aria-label="Filter request logs"
      onSubmit={(e) => {
        e.preventDefault();
        // The default window stays out of the address.
        setQuery({ ...draft, days: draft.days === '7' ? null : draft.days, status_code: draft.status_code.trim(), route: draft.route.trim(), q: draft.q.trim() });
      }}
    >
      <Select label="Window" name="days" value={draft.days} options={dayOptions} onChange={on('days')} error={fieldError('days')} />
      <Select
        label="Outcome"
        name="status"
        value={draft.status}
        onChange={on('status')}
        options={[
          ['', 'Any'],
          ['success', 'Succeeded (below 400)'],
          ['failed', 'Failed (400 or more)'],
        ]}
      />
      <Select label="Method" name="method" value={draft.method} onChange={on('method')} options={[['', 'Any'], ...METHODS.map((m): [string, string] => [m, m])]} />
      <Field label="Status code" name="status_code" type="number" min={100} max={599} inputMode="numeric" value={draft.status_code} onInput={on('status_code')} error={fieldError('status_code')} />
      <Field label="Route" name="route" placeholder="/v1/deploys/{id}" maxLength={255} spellcheck={false} value={draft.route} onInput={on('route')} error={fieldError('route')} />
      <Field label="Path or error contains" name="q" type="search" maxLength={200} value={draft.q} onInput={on('q')} error={fieldError('q')} />
      <button type="submit" class="secondary">
        Apply filters
      </button>
    </form>
  );
}

const seconds = (iso: string) => Date.parse(iso) / 1000;
const everyNth = (xs: ArrayLike<number>, most: number) => Array.from(xs).filter((_, i, all) => i % Math.ceil(all.length / most) === 0);

/** Requests and errors per bucket as lines over time, in the workspace's timezone (UTC days for daily buckets, which is how the API cuts them). */
function BucketsChart({ buckets, hourly }: { buckets: Schemas['LogBucket'][]; hourly: boolean }) {
  const ws = useWorkspace();
  const tz = hourly ? (ws?.timezone ?? 'UTC') : 'UTC';
  const chart = useMemo(() => {
    const data: uPlot.AlignedData = [buckets.map((b) => seconds(b.start)), buckets.map((b) => b.total), buckets.map((b) => b.errors)];
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
      series: [
        { label: hourly ? 'Hour' : 'Day (UTC)' },
        { label: 'Requests', stroke: COLORS.primary, width: 2, points: { show: buckets.length <= 31 } },
        { label: 'Errors', stroke: COLORS.bad, width: 2, dash: [6, 3], points: { show: buckets.length <= 31 } },
      ],
      // Daily buckets are UTC days: label them by date, at most about eight of them.
      axes: [hourly ? {} : { splits: () => everyNth(data[0], 8), values: (_u, splits) => splits.map((s) => new Date(s * 1000).toISOString().slice(5, 10)) }, { label: 'Requests' }],
    };
    return { data, options };
  }, [buckets, hourly, tz]);
  const label = `Requests and errors per ${hourly ? 'hour' : 'day'}: ${buckets.reduce((s, b) => s + b.total, 0)} requests, ${buckets.reduce((s, b) => s + b.errors, 0)} errors. The table below has each ${hourly ? 'hour' : 'day'}.`;
  return <Chart label={label} options={chart.options} data={chart.data} />;
}

/** The chart's numbers for people who do not see it, and for anyone who wants them exactly. */
function BucketsTable({ buckets, hourly }: { buckets: Schemas['LogBucket'][]; hourly: boolean }) {
  const busiest = buckets.reduce<Schemas['LogBucket'] | null>((m, b) => (!m || b.total > m.total ? b : m), null);
  return (
    <details>
      <summary>
        Each {hourly ? 'hour' : 'day'} as a table
        {busiest && busiest.total > 0 && (
          <span class="muted">
            {' '}
            (busiest: {busiest.total} requests, {hourly ? <When iso={busiest.start} /> : busiest.start.slice(0, 10)})
          </span>
        )}
      </summary>
      <div class="scroll" tabIndex={0} role="region" aria-label={`Requests per ${hourly ? 'hour' : 'day'} table`}>
        <table>
          <thead>
            <tr>
              <th scope="col">{hourly ? 'Hour starting' : 'Day (UTC)'}</th>
              <th scope="col">Requests</th>
              <th scope="col">Errors</th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((b) => (
              <tr key={b.start}>
                <th scope="row">{hourly ? <When iso={b.start} /> : <time dateTime={b.start.slice(0, 10)}>{b.start.slice(0, 10)}</time>}</th>
                <td class="num">{b.total}</td>
                <td class={`num${b.errors > 0 ? ' bad' : ''}`}>{b.errors}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
