import { useState } from 'preact/hooks';
import { api, must, type Schemas } from '../api.ts';
import { choices } from '../choices.ts';
import { navigate } from '../router.tsx';
import { ConfirmButton, Field, Loading, PageTitle, ProblemBanner, Select, useAsync, useForm } from '../ui.tsx';
import type { PageProps } from './index.tsx';

type Workspace = Schemas['Workspace'];

const CHECK_SCHEDULE = choices({ daily: 'Daily, at the check time', hourly: 'Hourly, at the check time’s minute', off: 'Off: only after deploys and on demand' } satisfies Record<
  Schemas['CheckSchedule'],
  string
>);
const CRAWL_SCHEDULE = choices({ weekly: 'Weekly, Mondays at the check time', off: 'Off: only after deploys and on demand' } satisfies Record<Schemas['CrawlSchedule'], string>);
const RENDER_PRESET = choices({ mobile: 'Mobile (a slow phone, as Lighthouse does by default)', desktop: 'Desktop' } satisfies Record<Schemas['RenderPreset'], string>);
const DIGEST = choices({ weekly: 'Weekly, Mondays at 09:00', daily: 'Daily at 09:00', none: 'No digest' } satisfies Record<Schemas['DigestFrequency'], string>);

/** The browser's IANA time zones, with the workspace's own first in case the browser lacks it. */
function timeZones(current: string): Array<[string, string]> {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set([current, 'UTC', ...zones])].map((z) => [z, z.replaceAll('_', ' ')]);
}

const FIELDS = ['name', 'website', 'timezone', 'language', 'check_schedule', 'check_time', 'crawl_schedule', 'render_preset'] as const;
type Values = Record<(typeof FIELDS)[number], string>;
const valuesOf = (w: Workspace): Values => ({
  name: w.name,
  website: w.website,
  timezone: w.timezone,
  language: w.language,
  check_schedule: w.check_schedule,
  check_time: w.check_time,
  crawl_schedule: w.crawl_schedule,
  render_preset: w.render_preset,
});

/**
 * The workspace's settings (spec/workspaces.tsp: admin or owner may change them, only an owner
 * delete the workspace) and the signed-in person's own digest email (spec/digests.tsp).
 */
export function SettingsPage({ workspace, onWorkspaceChanged }: PageProps) {
  return (
    <>
      <PageTitle>Settings</PageTitle>
      <WorkspaceForm workspace={workspace} onSaved={onWorkspaceChanged} />
      <NotificationsForm workspaceId={workspace.id} />
      <section aria-labelledby="danger-h">
        <h2 id="danger-h">Delete the workspace</h2>
        <p>Deleting removes its deploys, checks, crawls, webhooks and members for good. Only an owner can.</p>
        <DeleteWorkspace workspace={workspace} onDeleted={onWorkspaceChanged} />
      </section>
    </>
  );
}

function WorkspaceForm({ workspace, onSaved }: { workspace: Workspace; onSaved: () => void }) {
  const f = useForm();
  // Held in state so a re-render (busy, an error) never puts back what was typed.
  const [v, setV] = useState<Values>(() => valuesOf(workspace));
  const [saved, setSaved] = useState(false);
  /** A control's name, value and the API's error for it. */
  const bind = (k: keyof Values) => ({ name: k, value: v[k], error: f.errorFor(`/${k}`) });
  const change = (k: keyof Values) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => {
    const value = e.currentTarget.value;
    setSaved(false);
    setV((old) => ({ ...old, [k]: value }));
  };
  return (
    <form
      aria-labelledby="workspace-h"
      onSubmit={f.submit(async () => {
        setSaved(false);
        const answer = await must(
          api.PUT('/v1/workspaces/{id}', {
            params: { path: { id: workspace.id } },
            body: {
              name: v.name.trim(),
              website: v.website.trim(),
              timezone: v.timezone,
              language: v.language.trim(),
              check_schedule: CHECK_SCHEDULE.is(v.check_schedule) ? v.check_schedule : undefined,
              check_time: v.check_time.trim(),
              crawl_schedule: CRAWL_SCHEDULE.is(v.crawl_schedule) ? v.crawl_schedule : undefined,
              render_preset: RENDER_PRESET.is(v.render_preset) ? v.render_preset : undefined,
            },
          }),
        );
        setV(valuesOf(answer.data));
        setSaved(true);
        onSaved();
      })}
    >
      <h2 id="workspace-h">Workspace</h2>
      <Field label="Name" required maxLength={255} {...bind('name')} onInput={change('name')} />
      <Field label="Website" type="url" required maxLength={500} hint="The http or https address the workspace watches." {...bind('website')} onInput={change('website')} />
      <Select label="Time zone" options={timeZones(workspace.timezone)} {...bind('timezone')} onChange={change('timezone')} />
      <Field label="Language" required maxLength={35} hint="A BCP 47 tag such as en or pt-BR: dates and digests use it." {...bind('language')} onInput={change('language')} />
      <Select label="Site checks" options={CHECK_SCHEDULE.options} {...bind('check_schedule')} onChange={change('check_schedule')} />
      <Field label="Check time" required inputMode="numeric" hint="HH:MM, 24-hour, in the workspace’s time zone." {...bind('check_time')} onInput={change('check_time')} />
      <Select label="Crawls" options={CRAWL_SCHEDULE.options} {...bind('crawl_schedule')} onChange={change('crawl_schedule')} />
      <Select label="Rendered checks" options={RENDER_PRESET.options} {...bind('render_preset')} onChange={change('render_preset')} />
      <ProblemBanner error={f.formError(FIELDS.map((k) => `/${k}`))} />
      {saved && <p role="status">Settings saved.</p>}
      <div>
        <button type="submit" disabled={f.busy}>
          Save settings
        </button>
      </div>
    </form>
  );
}

function NotificationsForm({ workspaceId }: { workspaceId: string }) {
  const current = useAsync(() => must(api.GET('/v1/workspaces/{id}/notifications', { params: { path: { id: workspaceId } } })), [workspaceId]);
  const f = useForm();
  const [digest, setDigest] = useState<Schemas['DigestFrequency'] | null>(null);
  const [saved, setSaved] = useState(false);
  const value = digest ?? current.data?.digest ?? 'weekly';
  return (
    <form
      aria-labelledby="notifications-h"
      onSubmit={f.submit(async () => {
        setSaved(false);
        await must(api.PUT('/v1/workspaces/{id}/notifications', { params: { path: { id: workspaceId } }, body: { digest: value } }));
        setSaved(true);
        current.reload();
      })}
    >
      <h2 id="notifications-h">Your digest email</h2>
      <ProblemBanner error={current.error} />
      {!current.data ? (
        <Loading what="your notification settings" />
      ) : (
        <>
          <p class="muted">
            Only for you: a summary of this workspace’s deploys and findings, sent to {current.data.email} in the time zone {current.data.timezone}.
          </p>
          <Select
            label="Digest"
            name="digest"
            value={value}
            options={DIGEST.options}
            onChange={(e) => {
              setSaved(false);
              const d = e.currentTarget.value;
              if (DIGEST.is(d)) setDigest(d);
            }}
            error={f.errorFor('/digest')}
          />
          <ProblemBanner error={f.formError(['/digest'])} />
          {saved && <p role="status">Digest setting saved.</p>}
          <div>
            <button type="submit" class="secondary" disabled={f.busy}>
              Save digest setting
            </button>
          </div>
        </>
      )}
    </form>
  );
}

function DeleteWorkspace({ workspace, onDeleted }: { workspace: Workspace; onDeleted: () => void }) {
  const [typed, setTyped] = useState('');
  return (
    <ConfirmButton
      label="Delete workspace"
      title={`Delete “${workspace.name}”?`}
      body={
        <>
          <p>Everything in it is deleted and cannot be brought back. Type the workspace’s name to confirm.</p>
          <Field label="Workspace name" name="confirm-name" autoComplete="off" spellcheck={false} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </>
      }
      confirmLabel="Delete workspace for good"
      onConfirm={async () => {
        if (typed.trim() !== workspace.name.trim()) throw new Error('Type the workspace’s name exactly as shown to delete it.');
        await must(api.DELETE('/v1/workspaces/{id}', { params: { path: { id: workspace.id } } }));
        const left = await must(api.GET('/v1/workspaces')).catch(() => null);
        onDeleted();
        // The switcher's list still holds the deleted workspace until it reloads, and '/' opens
        // the list's first one: go to one that exists, or load '/' afresh when none is left.
        const next = left?.data[0];
        if (next) navigate(`/w/${next.id}/deploys`);
        else location.assign('/');
      }}
    />
  );
}
