import { useId, useMemo, useRef, useState } from 'preact/hooks';
import { ApiProblem, api, must, type Schemas } from '../api.ts';
import { Link, navigate, setQuery, useLocation } from '../router.tsx';
import { ConfirmButton, Field, Loading, PageTitle, Pager, ProblemBanner, Select, ShownOnce, When, useAsync, useForm, usePager } from '../ui.tsx';
import type { PageProps } from './index.tsx';

type Webhook = Schemas['Webhook'];
type WebhookEvent = Schemas['WebhookEvent'];
type DeliveryEvent = Schemas['DeliveryEvent'];
type Attempt = Schemas['DeliveryAttempt'];

/** spec/webhooks.tsp WebhookEvent, in the words a person reads. */
const EVENTS: Array<[WebhookEvent, string]> = [
  ['site_check.regression', 'A site check found something worse'],
  ['site_crawl.regression', 'A crawl found something new'],
  ['site_check.completed', 'A site check finished'],
  ['site_crawl.completed', 'A crawl finished'],
  ['deploy.recorded', 'A deploy was recorded'],
];
const isEvent = (s: unknown): s is WebhookEvent => EVENTS.some(([e]) => e === s);
const DELIVERY_EVENTS: DeliveryEvent[] = [...EVENTS.map(([e]) => e), 'webhook.test'];
const isDeliveryEvent = (s: string | null): s is DeliveryEvent => DELIVERY_EVENTS.some((e) => e === s);
const isStatus = (s: string | null): s is Attempt['status'] => s === 'success' || s === 'failed';

/** Up to 10 custom headers (WebhookCreate.headers). */
const MAX_HEADERS = 10;
const FIELDS = ['/name', '/url', '/events', '/secret', '/headers'];

/** The message of exactly this pointer, not of a field under it (the headers group and its rows each show their own). */
function exactError(error: unknown, pointer: string): string | undefined {
  return error instanceof ApiProblem ? error.problem?.errors?.find((e) => e.path === pointer)?.message : undefined;
}
const headerPointer = (name: string) => `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** The webhook pages' own wording for its state. */
function ActivePill({ active }: { active: boolean }) {
  return <span class={`pill ${active ? 'finished' : 'queued'}`}>{active ? 'Active' : 'Paused'}</span>;
}

export function AttemptPill({ status }: { status: Attempt['status'] }) {
  return <span class={`pill ${status === 'success' ? 'finished' : 'failed'}`}>{status === 'success' ? 'Succeeded' : 'Failed'}</span>;
}

/** Every webhook of the workspace, oldest first (the API does not page them), and the form that creates one. */
export function WebhooksPage({ workspace }: PageProps) {
  const list = useAsync(() => must(api.GET('/v1/webhooks', { params: { query: { workspace_id: workspace.id } } })), [workspace.id]);
  const [created, setCreated] = useState<Schemas['WebhookWithSecret'] | null>(null);
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <p class="muted">Each subscribed event is sent as a signed POST to the webhook's URL and retried for about two days if the receiver fails.</p>
      <ProblemBanner error={list.error} />
      {!list.data ? (
        <Loading what="webhooks" />
      ) : list.data.data.length === 0 ? (
        <p>No webhooks yet. Create one below.</p>
      ) : (
        <div class="scroll" tabIndex={0} role="region" aria-label="Webhooks table">
          <table>
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">Failures in a row</th>
                <th scope="col">Last attempt</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((w) => (
                <tr key={w.id}>
                  <th scope="row">
                    <Link href={`/w/${workspace.id}/webhooks/${w.id}`}>{w.name ?? w.url}</Link>
                    {w.name && <div class="muted url">{w.url}</div>}
                  </th>
                  <td>{w.events.join(', ')}</td>
                  <td>
                    <ActivePill active={w.active} />
                  </td>
                  <td class="num">{w.failureCount}</td>
                  <td>
                    <When iso={w.lastTriggeredAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <section aria-labelledby="create-h">
        <h2 id="create-h">Create a webhook</h2>
        {created && (
          <>
            <ShownOnce label="Signing secret" value={created.secret} />
            <p>
              <Link href={`/w/${workspace.id}/webhooks/${created.id}`}>Open the new webhook</Link>
            </p>
          </>
        )}
        <CreateWebhookForm
          workspaceId={workspace.id}
          onCreated={(w) => {
            setCreated(w);
            list.reload();
          }}
        />
      </section>
    </>
  );
}

function CreateWebhookForm({ workspaceId, onCreated }: { workspaceId: string; onCreated: (w: Schemas['WebhookWithSecret']) => void }) {
  const f = useForm();
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  // A new form after each success, so its fields start empty again.
  const [generation, setGeneration] = useState(0);
  return (
    <form
      key={generation}
      aria-label="Create a webhook"
      onSubmit={f.submit(async (d) => {
        const text = (k: string) => String(d.get(k) ?? '').trim();
        const hs = headerValues(headers, []);
        const w = await must(
          api.POST('/v1/webhooks', {
            body: {
              workspaceId,
              url: text('url'),
              events: d.getAll('events').filter(isEvent),
              name: text('name') || undefined,
              secret: text('secret') || undefined,
              headers: hs && Object.keys(hs).length ? nonNull(hs) : undefined,
            },
          }),
        );
        setHeaders([]);
        setGeneration((g) => g + 1);
        onCreated(w);
      })}
    >
      <Field label="Name" name="name" maxLength={120} hint="Optional, for people: where the events go." error={f.errorFor('/name')} />
      <Field label="URL" name="url" type="url" required placeholder="https://hooks.example.com/sitehealth" hint="https on a public host." autoComplete="off" spellcheck={false} error={f.errorFor('/url')} />
      <EventBoxes legend="Events to send" chosen={[]} error={f.errorFor('/events')} />
      <Field label="Signing secret" name="secret" minLength={16} maxLength={255} autoComplete="off" spellcheck={false} hint="Optional: leave empty and one is generated (whsec_ and 32 random bytes), shown once." error={f.errorFor('/secret')} />
      <HeaderRows rows={headers} onChange={setHeaders} error={f.error} />
      <ProblemBanner error={f.formError(FIELDS)} />
      <div class="actions">
        <button type="submit" disabled={f.busy}>
          Create webhook
        </button>
      </div>
    </form>
  );
}

/** The event checkboxes, as one group with one error. */
function EventBoxes({ legend, chosen, error }: { legend: string; chosen: WebhookEvent[]; error?: string }) {
  const id = useId();
  return (
    <fieldset class={error ? 'invalid' : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {EVENTS.map(([value, text]) => (
        <label key={value} class="checkbox">
          <input type="checkbox" name="events" value={value} defaultChecked={chosen.includes(value)} />
          <span>
            {text} <code class="muted">{value}</code>
          </span>
        </label>
      ))}
      {error && (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </fieldset>
  );
}

interface HeaderRow {
  key: number;
  name: string;
  value: string;
  /** A header the webhook already has: its value is never shown, and an empty one keeps it. */
  stored: boolean;
}

/**
 * The custom headers as rows of name and value. A stored header's name is fixed (rename = remove
 * and add); its empty value means "keep", as WebhookUpdate.headers defines a null value.
 */
function HeaderRows({ rows, onChange, error }: { rows: HeaderRow[]; onChange: (rows: HeaderRow[]) => void; error: unknown }) {
  const next = useRef(rows.reduce((m, r) => Math.max(m, r.key), 0) + 1);
  const groupError = exactError(error, '/headers');
  const set = (key: number, patch: Partial<HeaderRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <fieldset class={groupError ? 'invalid' : undefined}>
      <legend>Custom headers</legend>
      <small class="muted">Sent with every delivery, for example an Authorization the receiver expects. Values are secret: they are never shown again.</small>
      {rows.map((r, i) => (
        <div key={r.key} class="header-row">
          <Field
            label={`Header ${i + 1} name`}
            name={`header-name-${r.key}`}
            value={r.name}
            readOnly={r.stored}
            required
            maxLength={64}
            autoComplete="off"
            spellcheck={false}
            onInput={(e) => set(r.key, { name: e.currentTarget.value })}
            error={exactError(error, headerPointer(r.name.trim()))}
          />
          <Field
            label={`Header ${i + 1} value`}
            name={`header-value-${r.key}`}
            value={r.value}
            placeholder={r.stored ? 'unchanged' : ''}
            maxLength={1024}
            autoComplete="off"
            spellcheck={false}
            onInput={(e) => set(r.key, { value: e.currentTarget.value })}
          />
          <button type="button" class="secondary" onClick={() => onChange(rows.filter((x) => x.key !== r.key))}>
            Remove header {i + 1}
          </button>
        </div>
      ))}
      {groupError && <small class="field-error">{groupError}</small>}
      <div>
        <button type="button" class="secondary" disabled={rows.length >= MAX_HEADERS} onClick={() => onChange([...rows, { key: next.current++, name: '', value: '', stored: false }])}>
          Add a header
        </button>
      </div>
    </fieldset>
  );
}

/**
 * The headers to send: undefined for "unchanged" (no rows before or now), null when every stored
 * header was removed, else the whole set with null for a stored header whose value is kept.
 */
function headerValues(rows: HeaderRow[], storedNames: string[]): Record<string, string | null> | null | undefined {
  if (rows.length === 0) return storedNames.length ? null : undefined;
  return Object.fromEntries(rows.map((r) => [r.name.trim(), r.stored && r.value === '' ? null : r.value]));
}

function nonNull(h: Record<string, string | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== null));
}

/** A fresh signing secret in the shape the server generates: whsec_ and the base64 of 32 random bytes. */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** One webhook: its settings, pause and resume, a test, a new secret, deletion, and its deliveries. */
export function WebhookPage({ workspace, params }: PageProps) {
  const hook = useAsync(() => must(api.GET('/v1/webhooks/{id}', { params: { path: { id: params.id } } })), [params.id]);
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [testing, setTesting] = useState(false);
  // Bumped when an action made an attempt, so the deliveries list asks again.
  const [attempts, setAttempts] = useState(0);
  const w = hook.data;

  if (hook.error && !w) return <ProblemBanner error={hook.error} />;
  if (!w) return <Loading what="the webhook" />;

  const update = (body: Schemas['WebhookUpdate']) => must(api.PUT('/v1/webhooks/{id}', { params: { path: { id: w.id } }, body }));
  const act = async (run: () => Promise<void>) => {
    setError(null);
    setNotice(null);
    try {
      await run();
    } catch (err) {
      setError(err);
    }
  };
  const sendTest = () =>
    act(async () => {
      setTesting(true);
      try {
        const a = await must(api.POST('/v1/webhooks/{id}/test', { params: { path: { id: w.id } } }));
        setNotice(`Test sent: ${attemptSummary(a)}`);
        setAttempts((n) => n + 1);
        hook.reload();
      } finally {
        setTesting(false);
      }
    });

  return (
    <>
      <PageTitle>Webhook {w.name ?? w.url}</PageTitle>
      <dl class="facts">
        <dt>URL</dt>
        <dd>
          <code>{w.url}</code>
        </dd>
        <dt>Events</dt>
        <dd>{w.events.join(', ')}</dd>
        <dt>Custom headers</dt>
        <dd>{w.headerNames.length ? w.headerNames.join(', ') : <span class="muted">none</span>}</dd>
        <dt>State</dt>
        <dd aria-live="polite">
          <ActivePill active={w.active} /> {w.failureCount > 0 && <span class="bad">{w.failureCount} failed attempts in a row</span>}
        </dd>
        <dt>Last attempt</dt>
        <dd>
          <When iso={w.lastTriggeredAt} />
        </dd>
        <dt>Created</dt>
        <dd>
          <When iso={w.createdAt} />
        </dd>
      </dl>
      <div class="actions">
        <button type="button" onClick={sendTest} disabled={testing}>
          {testing ? 'Sending test…' : 'Send test'}
        </button>
        {w.active ? (
          <ConfirmButton
            label="Pause webhook"
            class="secondary"
            title="Pause this webhook?"
            body={<p>Scheduled retries are cancelled, and events that happen while it is paused are not sent later.</p>}
            confirmLabel="Pause webhook"
            onConfirm={async () => {
              await update({ active: false });
              setNotice('The webhook is paused.');
              hook.reload();
            }}
          />
        ) : (
          <button
            type="button"
            class="secondary"
            onClick={() =>
              act(async () => {
                await update({ active: true });
                setNotice('The webhook is active again.');
                hook.reload();
              })
            }
          >
            Resume webhook
          </button>
        )}
        <ConfirmButton
          label="Rotate secret"
          class="secondary"
          title="Rotate the signing secret?"
          body={<p>A new secret is made and shown once. For 24 hours every delivery carries signatures by both the new and the old secret, so the receiver can switch over.</p>}
          confirmLabel="Rotate secret"
          onConfirm={async () => {
            const answer = await update({ secret: newSecret() });
            setSecret('secret' in answer ? answer.secret : null);
            hook.reload();
          }}
        />
        <ConfirmButton
          label="Delete webhook"
          title="Delete this webhook?"
          body={<p>It stops receiving events at once, and its delivery history is deleted with it.</p>}
          confirmLabel="Delete webhook"
          onConfirm={async () => {
            await must(api.DELETE('/v1/webhooks/{id}', { params: { path: { id: w.id } } }));
            navigate(`/w/${workspace.id}/webhooks`);
          }}
        />
      </div>
      <p role="status" class="muted">
        {notice}
      </p>
      <ProblemBanner error={error} />
      {secret && <ShownOnce label="New signing secret" value={secret} />}
      <Deliveries webhook={w} refresh={attempts} onAttempt={() => hook.reload()} />
      <EditWebhook key={`${w.id}-${w.name}-${w.url}-${w.events.join()}-${w.headerNames.join()}`} webhook={w} onSaved={() => hook.reload()} />
      <p>
        <Link href={`/w/${workspace.id}/webhooks`}>All webhooks</Link>
      </p>
    </>
  );
}

function attemptSummary(a: Attempt): string {
  const answer = a.responseStatus === null ? 'no answer' : `answered ${a.responseStatus}`;
  return `attempt ${a.attempt} ${a.status === 'success' ? 'succeeded' : 'failed'}, ${answer} in ${a.durationMs} ms.`;
}

function EditWebhook({ webhook, onSaved }: { webhook: Webhook; onSaved: () => void }) {
  const f = useForm();
  const [name, setName] = useState(webhook.name ?? '');
  const [url, setUrl] = useState(webhook.url);
  const [headers, setHeaders] = useState<HeaderRow[]>(() => webhook.headerNames.map((n, i) => ({ key: i + 1, name: n, value: '', stored: true })));
  const [saved, setSaved] = useState(false);
  return (
    <section aria-labelledby="edit-h">
      <h2 id="edit-h">Settings</h2>
      <form
        aria-label="Edit the webhook"
        onSubmit={f.submit(async (d) => {
          setSaved(false);
          const events = d.getAll('events').filter(isEvent);
          await must(
            api.PUT('/v1/webhooks/{id}', {
              params: { path: { id: webhook.id } },
              body: { name: name.trim() || null, url: url.trim(), events, headers: headerValues(headers, webhook.headerNames) },
            }),
          );
          setSaved(true);
          onSaved();
        })}
      >
        <Field label="Name" name="name" maxLength={120} value={name} onInput={(e) => setName(e.currentTarget.value)} error={f.errorFor('/name')} />
        <Field label="URL" name="url" type="url" required value={url} autoComplete="off" spellcheck={false} onInput={(e) => setUrl(e.currentTarget.value)} error={f.errorFor('/url')} />
        <EventBoxes legend="Events to send" chosen={webhook.events} error={f.errorFor('/events')} />
        <HeaderRows rows={headers} onChange={setHeaders} error={f.error} />
        <ProblemBanner error={f.formError(FIELDS)} />
        <div class="actions">
          <button type="submit" disabled={f.busy}>
            Save changes
          </button>
          <span role="status">{saved ? 'Saved.' : ''}</span>
        </div>
      </form>
    </section>
  );
}

const STATUSES: Array<[string, string]> = [
  ['', 'Any'],
  ['success', 'Succeeded'],
  ['failed', 'Failed'],
];

/** The webhook's attempts, newest first, filtered by status and event (kept in the address), a page at a time. */
function Deliveries({ webhook, refresh, onAttempt }: { webhook: Webhook; refresh: number; onAttempt: () => void }) {
  const { query } = useLocation();
  const status = query.get('status');
  const event = query.get('event');
  const open = query.get('delivery');
  const pager = usePager(`${status}|${event}`);
  const [redelivered, setRedelivered] = useState(0);
  const list = useAsync(
    () =>
      must(
        api.GET('/v1/webhooks/{id}/deliveries', {
          params: { path: { id: webhook.id }, query: { status: isStatus(status) ? status : undefined, event: isDeliveryEvent(event) ? event : undefined, limit: 25, cursor: pager.cursor } },
        }),
      ),
    [webhook.id, status, event, pager.cursor, refresh, redelivered],
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const detailRef = useRef<HTMLElement>(null);

  const redeliver = async (a: Attempt) => {
    setError(null);
    setNotice(null);
    try {
      const made = await must(api.POST('/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id: webhook.id, deliveryId: a.id } } }));
      setNotice(`Redelivered ${made.event}: ${attemptSummary(made)}`);
      setRedelivered((n) => n + 1);
      onAttempt();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="deliveries-h">
      <h2 id="deliveries-h">Deliveries</h2>
      <DeliveryFilters key={`${status}|${event}`} status={isStatus(status) ? status : ''} event={isDeliveryEvent(event) ? event : ''} />
      <p role="status" class="muted">
        {notice}
      </p>
      <ProblemBanner error={error ?? list.error} />
      {!webhook.active && <p class="muted">The webhook is paused: resume it to redeliver.</p>}
      {!list.data ? (
        <Loading what="deliveries" />
      ) : list.data.data.length === 0 ? (
        <p>{status || event ? 'No deliveries match these filters.' : 'No deliveries yet. Send a test to make one.'}</p>
      ) : (
        <div class="scroll" tabIndex={0} role="region" aria-label="Deliveries table">
          <table class="deliveries">
            <thead>
              <tr>
                <th scope="col">Sent</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Status</th>
                <th scope="col">Answer</th>
                <th scope="col">Duration</th>
                <th scope="col">Next retry</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((a) => (
                <tr key={a.id} class={a.id === open ? 'selected' : undefined}>
                  <th scope="row" id={`attempt-${a.id}`}>
                    <When iso={a.createdAt} withSeconds />
                  </th>
                  <td>
                    <code>{a.event}</code>
                  </td>
                  <td class="num">{a.attempt}</td>
                  <td>
                    <AttemptPill status={a.status} />
                  </td>
                  <td class="num">{a.responseStatus ?? <span class="muted">none</span>}</td>
                  <td class="num">{a.durationMs} ms</td>
                  <td>{a.nextRetryAt ? <When iso={a.nextRetryAt} /> : <span class="muted">—</span>}</td>
                  <td class="row-actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-describedby={`attempt-${a.id}`}
                      aria-expanded={a.id === open}
                      onClick={() => {
                        setQuery({ delivery: a.id === open ? null : a.id });
                        queueMicrotask(() => detailRef.current?.scrollIntoView({ block: 'nearest' }));
                      }}
                    >
                      {a.id === open ? 'Hide details' : 'Details'}
                    </button>
                    <button type="button" class="secondary" aria-describedby={`attempt-${a.id}`} onClick={() => redeliver(a)}>
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.meta.next_cursor} label="Deliveries" />
      {open && (
        <section ref={detailRef} aria-label="The attempt in detail">
          <DeliveryDetail key={open} webhookId={webhook.id} deliveryId={open} onRedeliver={redeliver} />
        </section>
      )}
    </section>
  );
}

/**
 * The filters as the person sets them, written to the address on "Apply filters". Held in state:
 * the page re-renders while they choose (a list or the webhook loading), and must not put the
 * address's values back into the selects.
 */
function DeliveryFilters(props: { status: string; event: string }) {
  const [status, setStatus] = useState(props.status);
  const [event, setEvent] = useState(props.event);
  return (
    <form
      class="filters"
      aria-label="Filter deliveries"
      onSubmit={(e) => {
        e.preventDefault();
        setQuery({ status, event, delivery: null });
      }}
    >
      <Select label="Status" name="status" value={status} options={STATUSES} onChange={(e) => setStatus(e.currentTarget.value)} />
      <Select label="Event" name="event" value={event} options={[['', 'Any'], ...DELIVERY_EVENTS.map((e): [string, string] => [e, e])]} onChange={(e) => setEvent(e.currentTarget.value)} />
      <button type="submit" class="secondary">
        Apply filters
      </button>
    </form>
  );
}

/** Pretty JSON when the body is JSON, else the text exactly as sent. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One attempt: what was sent (the exact payload) and what came back. */
function DeliveryDetail({ webhookId, deliveryId, onRedeliver }: { webhookId: string; deliveryId: string; onRedeliver: (a: Attempt) => Promise<void> }) {
  const detail = useAsync(() => must(api.GET('/v1/webhooks/{id}/deliveries/{deliveryId}', { params: { path: { id: webhookId, deliveryId } } })), [webhookId, deliveryId]);
  const a = detail.data;
  const payload = useMemo(() => (a ? pretty(a.payload) : ''), [a]);
  if (detail.error && !a) return <ProblemBanner error={detail.error} />;
  if (!a) return <Loading what="the attempt" />;
  return (
    <>
      <h3>
        Attempt {a.attempt} of <code>{a.event}</code>
      </h3>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <AttemptPill status={a.status} />
        </dd>
        <dt>Sent</dt>
        <dd>
          <When iso={a.createdAt} withSeconds />
        </dd>
        <dt>Answer</dt>
        <dd>{a.responseStatus === null ? 'No answer came' : `HTTP ${a.responseStatus}`}</dd>
        <dt>Duration</dt>
        <dd>{a.durationMs} ms</dd>
        <dt>Next retry</dt>
        <dd>{a.nextRetryAt ? <When iso={a.nextRetryAt} withSeconds /> : <span class="muted">none scheduled</span>}</dd>
        <dt>Delivery key</dt>
        <dd>
          <code>{a.deliveryKey}</code>
        </dd>
        <dt>Body SHA-256</dt>
        <dd>
          <code>{a.bodyHash}</code>
        </dd>
      </dl>
      <h4>Payload sent</h4>
      <pre tabIndex={0} role="region" aria-label="Payload sent" class="payload">
        {payload}
      </pre>
      <h4>Response body</h4>
      {a.responseBody ? (
        <pre tabIndex={0} role="region" aria-label="Response body" class="response">
          {a.responseBody}
        </pre>
      ) : (
        <p class="muted">Empty.</p>
      )}
      <div class="actions">
        <button type="button" onClick={() => onRedeliver(a)}>
          Redeliver
        </button>
        <button type="button" class="secondary" onClick={() => setQuery({ delivery: null })}>
          Close details
        </button>
      </div>
    </>
  );
}
