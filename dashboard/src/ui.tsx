import { createContext, createElement, type ComponentChildren, type InputHTMLAttributes, type SelectHTMLAttributes } from 'preact';
import { useCallback, useContext, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiProblem, type Schemas } from './api.ts';

/** The workspace being shown: its timezone and language format every date on the page. */
export const WorkspaceContext = createContext<Schemas['Workspace'] | null>(null);
export const useWorkspace = () => useContext(WorkspaceContext);

export interface Async<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change; `reload` runs it again. A late answer for old deps is dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [nonce, setNonce] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (error: unknown) => mine === seq.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, [...deps, nonce]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export function errorText(error: unknown): string {
  if (error instanceof ApiProblem) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** What went wrong, announced to screen readers as it appears. */
export function ProblemBanner({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="problem" role="alert">
      {errorText(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** The input attributes the dashboard's forms use. */
type InputAttributes = { type?: 'text' | 'email' | 'password' | 'number' | 'date' | 'url' | 'search' } & Pick<InputHTMLAttributes<HTMLInputElement>, 'required' | 'value' | 'placeholder' | 'maxLength' | 'minLength' | 'autoComplete' | 'inputMode' | 'pattern' | 'spellcheck' | 'min' | 'max' | 'disabled' | 'readOnly' | 'onInput'>;
type InputProps = InputAttributes & { label: string; hint?: string; error?: string; name: string };

/** What a labelled control needs to be tied to its label, hint and error for assistive tech. */
interface ControlIds {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** A label, a hint and the API's error for it around one control; every field of every form. */
function Labelled({ label, hint, error, control }: { label: string; hint?: string; error?: string; control: (ids: ControlIds) => ComponentChildren }) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' invalid' : ''}`}>
      <label for={id}>{label}</label>
      {hint && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
      {control({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {error && (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

export function Field({ label, hint, error, name, type = 'text', ...input }: InputProps) {
  // createElement, not JSX: preact's JSX types narrow <input> by a literal `type`, and this
  // component takes the type as a prop.
  return <Labelled label={label} hint={hint} error={error} control={(ids) => createElement('input', { ...ids, name, type, ...input })} />;
}

export function TextArea({ label, name, hint, error, rows = 6 }: { label: string; name: string; hint?: string; error?: string; rows?: number }) {
  return <Labelled label={label} hint={hint} error={error} control={(ids) => <textarea {...ids} name={name} rows={rows} spellcheck={false} />} />;
}

type SelectProps = Pick<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'required' | 'disabled' | 'onChange'> & { label: string; name: string; hint?: string; error?: string; options: Array<[value: string, text: string]> };

export function Select({ label, name, hint, error, options, ...select }: SelectProps) {
  return (
    <Labelled
      label={label}
      hint={hint}
      error={error}
      control={(ids) => (
        <select {...ids} name={name} {...select}>
          {options.map(([v, t]) => (
            <option key={v} value={v}>
              {t}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/**
 * A form that submits through `onSubmit` and keeps the API's problem: its field errors go next
 * to each field (`errorFor('/name')`), the rest above the buttons.
 */
export function useForm() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = (run: (data: FormData) => Promise<void>) => async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setBusy(true);
    setError(null);
    try {
      await run(new FormData(form));
    } catch (err) {
      setError(err);
      // Move focus to the first field the API named, so keyboard users land on it.
      queueMicrotask(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
    } finally {
      setBusy(false);
    }
  };
  const errorFor = (pointer: string) => (error instanceof ApiProblem ? error.fieldError(pointer) : undefined);
  /** The problem, unless every field it names has its own message on the form. */
  const formError = (pointers: string[]) => {
    if (!(error instanceof ApiProblem)) return error;
    const fields = error.problem?.errors ?? [];
    if (fields.length > 0 && fields.every((f) => pointers.some((p) => f.path === p || f.path.startsWith(`${p}/`)))) return null;
    return error;
  };
  return { busy, error, submit, errorFor, formError, setError };
}

/**
 * A button whose action must be confirmed in a modal dialog first (destructive actions). The
 * native dialog traps focus and closes on Escape.
 */
export function ConfirmButton(props: { label: string; title: string; body: ComponentChildren; confirmLabel: string; onConfirm: () => Promise<void> | void; class?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  return (
    <>
      <button type="button" class={props.class ?? 'danger'} onClick={() => ref.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={ref} aria-labelledby={titleId} onClose={() => setError(null)}>
        <h2 id={titleId}>{props.title}</h2>
        <div>{props.body}</div>
        <ProblemBanner error={error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={() => ref.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                await props.onConfirm();
                ref.current?.close();
              } catch (err) {
                setError(err);
              } finally {
                setBusy(false);
              }
            }}
          >
            {props.confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

const UTC_FORMAT = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

/** A moment in the workspace's timezone and language, with its UTC value on hover. */
export function When({ iso, withSeconds }: { iso: string | null | undefined; withSeconds?: boolean }) {
  const ws = useWorkspace();
  if (!iso) return <span class="muted">—</span>;
  let text: string;
  try {
    text = new Intl.DateTimeFormat(ws?.language ?? undefined, {
      timeZone: ws?.timezone ?? 'UTC',
      dateStyle: 'medium',
      timeStyle: withSeconds ? 'medium' : 'short',
    }).format(new Date(iso));
  } catch {
    text = UTC_FORMAT(iso);
  }
  return (
    <time dateTime={iso} title={UTC_FORMAT(iso)}>
      {text}
    </time>
  );
}

const STATE_TEXT: Record<string, string> = { queued: 'Queued', running: 'Running', finished: 'Finished', failed: 'Failed' };

/** A check's or crawl's state as a pill; `none` when nothing ran. */
export function StatePill({ state }: { state: Schemas['RunState'] | null | undefined }) {
  if (!state) return <span class="pill none">No check</span>;
  return <span class={`pill ${state}`}>{STATE_TEXT[state] ?? state}</span>;
}

export function SeverityPill({ severity }: { severity: Schemas['Severity'] }) {
  return <span class={`pill sev-${severity}`}>{severity}</span>;
}

/**
 * Cursor paging: "Next page" follows `next_cursor`; "Previous page" goes back along the cursors
 * already visited (an API cursor only points forward).
 */
export function usePager(resetKey: string) {
  const [trail, setTrail] = useState<string[]>([]);
  useEffect(() => setTrail([]), [resetKey]);
  const cursor = trail.length ? trail[trail.length - 1] : undefined;
  return {
    cursor,
    page: trail.length + 1,
    next: (c: string) => setTrail((t) => [...t, c]),
    previous: () => setTrail((t) => t.slice(0, -1)),
  };
}

export function Pager({ pager, nextCursor, label }: { pager: ReturnType<typeof usePager>; nextCursor: string | null | undefined; label: string }) {
  if (pager.page === 1 && !nextCursor) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" class="secondary" disabled={pager.page === 1} onClick={pager.previous}>
        Previous page
      </button>
      <span aria-live="polite">Page {pager.page}</span>
      <button type="button" class="secondary" disabled={!nextCursor} onClick={() => nextCursor && pager.next(nextCursor)}>
        Next page
      </button>
    </nav>
  );
}

/**
 * A secret shown once: the page never stores it; copying it is one keystroke. `done`, a button
 * that hides it once the person has stored it.
 */
export function ShownOnce({ label, value, done }: { label: string; value: string; done?: { label: string; onClick: () => void } }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="shown-once" role="status">
      <p>
        <strong>{label}</strong> is shown only now. Store it somewhere safe: it cannot be shown again.
      </p>
      <code class="secret">{value}</code>
      <button
        type="button"
        class="secondary"
        onClick={async () => {
          await navigator.clipboard?.writeText(value).catch(() => undefined);
          setCopied(true);
        }}
      >
        {copied ? 'Copied' : `Copy ${label.toLowerCase()}`}
      </button>
      {done && (
        <button type="button" class="secondary" onClick={done.onClick}>
          {done.label}
        </button>
      )}
    </div>
  );
}

export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${ref.current?.textContent ?? ''} · sitehealth`;
    // Each new page takes focus at its heading, so a screen reader announces where it is.
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}
