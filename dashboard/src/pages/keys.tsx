import { useState } from 'preact/hooks';
import { api, must, type Schemas } from '../api.ts';
import { choices } from '../choices.ts';
import { ConfirmButton, Field, Loading, PageTitle, Pager, ProblemBanner, Select, ShownOnce, When, useAsync, useForm, usePager } from '../ui.tsx';
import type { PageProps } from './index.tsx';

type Key = Schemas['ApiKey'];

/** Every scope with what it allows (spec/common/access.tsp). */
const SCOPES = choices({
  deploys: 'Record deploys',
  search: 'Read deploys and site checks',
  workspaces: 'Workspaces, request logs and activity',
  webhooks: 'Webhooks and their deliveries',
  keys: 'Manage its own API keys',
} satisfies Record<Schemas['Scope'], string>);

/** Expiry choices in days; the API takes any future time up to 10 years ahead (spec/api-keys.tsp). */
const EXPIRY: Array<[string, string]> = [
  ['', 'Never'],
  ['7', 'In 7 days'],
  ['30', 'In 30 days'],
  ['90', 'In 90 days'],
  ['365', 'In 1 year'],
];

/** How long a rotated key's old secret keeps working (`overlapSeconds`, 0 to 7 days). */
const OVERLAP: Array<[string, string]> = [
  ['0', 'Stops at once'],
  ['3600', 'Works 1 more hour'],
  ['86400', 'Works 1 more day'],
  ['604800', 'Works 7 more days'],
];

const DAY_MS = 86_400_000;

function keyState(k: Key): { text: string; cls: string } {
  if (k.revokedAt) return { text: 'Revoked', cls: 'failed' };
  if (k.replacedBy && k.expiresAt && Date.parse(k.expiresAt) > Date.now()) return { text: 'Rotated, overlap', cls: 'running' };
  if (k.expiresAt && Date.parse(k.expiresAt) <= Date.now()) return { text: k.replacedBy ? 'Rotated' : 'Expired', cls: 'none' };
  return { text: 'Active', cls: 'finished' };
}

/**
 * The signed-in person's API keys (spec/api-keys.tsp): they belong to the user, not the
 * workspace, so keys bound to other workspaces and unbound keys are listed too. The page never
 * holds a key beyond showing a new one once.
 */
export function KeysPage({ workspace }: PageProps) {
  const pager = usePager('keys');
  const keys = useAsync(() => must(api.GET('/v1/api-keys', { params: { query: { limit: 25, cursor: pager.cursor } } })), [pager.cursor]);
  const workspaces = useAsync(() => must(api.GET('/v1/workspaces')), []);
  const [secret, setSecret] = useState<{ label: string; key: Schemas['ApiKeyWithSecret'] } | null>(null);
  const workspaceName = (id: string | null) => {
    if (!id) return 'Every workspace of yours';
    return workspaces.data?.data.find((w) => w.id === id)?.name ?? 'A workspace you left';
  };

  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p class="muted">Keys let programs (CI, scripts) call the API as you, limited to their scopes and, when bound, to one workspace.</p>
      {secret && <ShownOnce label={secret.label} value={secret.key.key} done={{ label: 'I have stored the key', onClick: () => setSecret(null) }} />}
      <CreateKeyForm
        workspace={workspace}
        onCreated={(key) => {
          setSecret({ label: `The key “${key.name ?? key.prefix}”`, key });
          keys.reload();
        }}
      />
      <h2 id="keys-h">Your keys</h2>
      <ProblemBanner error={keys.error} />
      {!keys.data ? (
        <Loading what="your keys" />
      ) : keys.data.data.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <div class="scroll" tabIndex={0} role="region" aria-label="API keys table">
          <table aria-labelledby="keys-h">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Workspace</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => {
                const state = keyState(k);
                const live = state.text === 'Active';
                return (
                  <tr key={k.id}>
                    <th scope="row">{k.name ?? <span class="muted">No name</span>}</th>
                    <td class="nowrap">
                      <code>
                        {k.prefix}…{k.last4 ?? ''}
                      </code>
                    </td>
                    <td>{k.scopes.join(', ')}</td>
                    <td>{workspaceName(k.workspaceId)}</td>
                    <td>
                      <When iso={k.createdAt} />
                    </td>
                    <td>{k.lastUsedAt ? <When iso={k.lastUsedAt} /> : <span class="muted">Never</span>}</td>
                    <td>{k.expiresAt ? <When iso={k.expiresAt} /> : <span class="muted">Never</span>}</td>
                    <td>
                      <span class={`pill ${state.cls}`}>{state.text}</span>
                      {k.revokedAt && (
                        <div class="muted">
                          <When iso={k.revokedAt} />
                        </div>
                      )}
                    </td>
                    <td>
                      {live && (
                        <div class="actions">
                          <RotateButton
                            k={k}
                            onRotated={(key) => {
                              setSecret({ label: `The new key “${key.name ?? key.prefix}”`, key });
                              keys.reload();
                            }}
                          />
                          <ConfirmButton
                            label="Revoke"
                            title={`Revoke the key “${k.name ?? k.prefix}”?`}
                            body={<p>Every request with it is refused from the next one on. This cannot be undone.</p>}
                            confirmLabel="Revoke key"
                            onConfirm={async () => {
                              await must(api.DELETE('/v1/api-keys/{id}', { params: { path: { id: k.id } } }));
                              keys.reload();
                            }}
                          />
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={keys.data?.meta.next_cursor} label="API keys" />
    </>
  );
}

function CreateKeyForm({ workspace, onCreated }: { workspace: Schemas['Workspace']; onCreated: (key: Schemas['ApiKeyWithSecret']) => void }) {
  const f = useForm();
  return (
    <form
      aria-labelledby="create-key-h"
      onSubmit={f.submit(async (d) => {
        const days = Number(d.get('expires') || 0);
        const key = await must(
          api.POST('/v1/api-keys', {
            body: {
              name: String(d.get('name') ?? '').trim(),
              scopes: d.getAll('scopes').map(String).filter(SCOPES.is),
              workspaceId: d.get('bound') ? workspace.id : undefined,
              expiresAt: days ? new Date(Date.now() + days * DAY_MS).toISOString() : undefined,
            },
          }),
        );
        onCreated(key);
      })}
    >
      <h2 id="create-key-h">Create a key</h2>
      <Field label="Name" name="name" required maxLength={255} hint="Who or what uses it, such as “CI deploys”." error={f.errorFor('/name')} />
      <fieldset aria-describedby={f.errorFor('/scopes') ? 'scopes-error' : undefined}>
        <legend>Scopes</legend>
        {SCOPES.values.map((s) => (
          <label key={s} class="checkbox">
            <input type="checkbox" name="scopes" value={s} defaultChecked={s === 'deploys'} />
            <span>
              <code>{s}</code> — {SCOPES.labels[s]}
            </span>
          </label>
        ))}
        {f.errorFor('/scopes') && (
          <small id="scopes-error" class="field-error">
            {f.errorFor('/scopes')}
          </small>
        )}
      </fieldset>
      <label class="checkbox">
        <input type="checkbox" name="bound" value="1" defaultChecked />
        <span>Only for the workspace “{workspace.name}”</span>
      </label>
      {f.errorFor('/workspaceId') && <small class="field-error">{f.errorFor('/workspaceId')}</small>}
      <Select label="Expires" name="expires" options={EXPIRY} error={f.errorFor('/expiresAt')} />
      <ProblemBanner error={f.formError(['/name', '/scopes', '/workspaceId', '/expiresAt'])} />
      <div>
        <button type="submit" disabled={f.busy}>
          Create key
        </button>
      </div>
    </form>
  );
}

function RotateButton({ k, onRotated }: { k: Key; onRotated: (key: Schemas['ApiKeyWithSecret']) => void }) {
  const [overlap, setOverlap] = useState('0');
  return (
    <ConfirmButton
      class="secondary"
      label="Rotate"
      title={`Rotate the key “${k.name ?? k.prefix}”?`}
      body={
        <>
          <p>A new key with the same name, scopes and workspace replaces it; the new key is shown once.</p>
          <Select label="The old key" name="overlap" value={overlap} options={OVERLAP} onChange={(e) => setOverlap(e.currentTarget.value)} />
        </>
      }
      confirmLabel="Rotate key"
      onConfirm={async () => {
        const key = await must(api.POST('/v1/api-keys/{id}/rotate', { params: { path: { id: k.id } }, body: { overlapSeconds: Number(overlap) } }));
        onRotated(key);
      }}
    />
  );
}
