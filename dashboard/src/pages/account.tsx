import { useRef, useState } from 'preact/hooks';
import { api, must, type Schemas } from '../api.ts';
import { ConfirmButton, Field, Loading, PageTitle, ProblemBanner, ShownOnce, When, useAsync, useForm } from '../ui.tsx';

const METHOD_TEXT: Record<string, string> = { password: 'Password', passkey: 'Passkey', sso: 'Single sign-on' };

/** The person signed in: where they are signed in (devices), and signing out elsewhere. */
export function AccountPage({ me: signedIn }: { me: Schemas['Me'] }) {
  const sessions = useAsync(() => must(api.GET('/v1/sessions')), []);
  // Asked again so two-step and verification show their state after a change on this page.
  const fresh = useAsync(() => must(api.GET('/v1/me')), []);
  const me = fresh.data ?? signedIn;
  return (
    <>
      <PageTitle>Your account</PageTitle>
      <p class="wrap">
        Signed in as <strong>{me.email}</strong>
        {me.emailVerified ? '' : ' (email not verified yet)'}.
      </p>
      {!me.emailVerified && <VerifyEmail />}
      <PasswordForm onChanged={sessions.reload} />
      <TwoStep status={me.twoStep} onChanged={fresh.reload} />
      <Passkeys />
      <section aria-labelledby="devices-h">
        <h2 id="devices-h">Signed-in devices</h2>
        <ProblemBanner error={sessions.error} />
        {!sessions.data ? (
          <Loading what="your devices" />
        ) : (
          <ul class="cards">
            {sessions.data.data.map((s) => (
              <li key={s.id} class="card">
                <div>
                  <strong>{s.userAgent ?? 'Unknown browser'}</strong>
                  {s.current && <span class="pill finished"> This device</span>}
                </div>
                <div class="muted">
                  {METHOD_TEXT[s.method] ?? s.method} · {s.ip ?? 'unknown address'} · signed in <When iso={s.createdAt} /> · last seen <When iso={s.lastSeenAt} />
                </div>
                {!s.current && (
                  <ConfirmButton
                    label="Sign out this device"
                    title="Sign out this device?"
                    body={<p>The device loses its session at once.</p>}
                    confirmLabel="Sign out device"
                    onConfirm={async () => {
                      await must(api.DELETE('/v1/sessions/{id}', { params: { path: { id: s.id } } }));
                      sessions.reload();
                    }}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
        {sessions.data && sessions.data.data.length > 1 && (
          <ConfirmButton
            label="Sign out all other devices"
            title="Sign out all other devices?"
            body={<p>Every session but this one ends at once.</p>}
            confirmLabel="Sign out others"
            onConfirm={async () => {
              await must(api.POST('/v1/me/sign-out-others'));
              sessions.reload();
            }}
          />
        )}
      </section>
    </>
  );
}

function VerifyEmail() {
  const f = useForm();
  const [sent, setSent] = useState(false);
  return (
    <form
      aria-label="Verify your email address"
      onSubmit={f.submit(async () => {
        await must(api.POST('/v1/me/email-verification'));
        setSent(true);
      })}
    >
      {sent ? <p role="status">A verification link is on its way; it works once, for 24 hours.</p> : <p>Verify your address so password resets and digests reach you.</p>}
      <ProblemBanner error={f.error} />
      <div>
        <button type="submit" class="secondary" disabled={f.busy}>
          {sent ? 'Send the verification email again' : 'Send verification email'}
        </button>
      </div>
    </form>
  );
}

function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const f = useForm();
  const form = useRef<HTMLFormElement>(null);
  const [done, setDone] = useState(false);
  return (
    <form
      ref={form}
      aria-labelledby="password-h"
      onSubmit={f.submit(async (d) => {
        setDone(false);
        await must(api.PUT('/v1/me/password', { body: { currentPassword: String(d.get('currentPassword') ?? ''), newPassword: String(d.get('newPassword') ?? '') } }));
        form.current?.reset();
        setDone(true);
        onChanged();
      })}
    >
      <h2 id="password-h">Change password</h2>
      <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" required error={f.errorFor('/currentPassword')} />
      <Field
        label="New password"
        name="newPassword"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 10 characters. Every other device is signed out."
        error={f.errorFor('/newPassword')}
      />
      <ProblemBanner error={f.formError(['/currentPassword', '/newPassword'])} />
      {done && <p role="status">Your password is changed; every other device was signed out.</p>}
      <div>
        <button type="submit" disabled={f.busy}>
          Change password
        </button>
      </div>
    </form>
  );
}

/** A list of recovery codes, shown once (spec/sign-in.tsp: only the answers that make them hold them). */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return <ShownOnce label="Your recovery codes" value={codes.join('\n')} done={{ label: 'I have stored the recovery codes', onClick: onDone }} />;
}

/**
 * Two-step verification (spec/sign-in.tsp): start gives a TOTP secret shown once, a code from
 * the app turns it on and answers ten recovery codes, shown once; turning it off and new recovery
 * codes need the password again.
 */
function TwoStep({ status, onChanged }: { status: Schemas['TwoStepStatus']; onChanged: () => void }) {
  const [setup, setSetup] = useState<Schemas['TwoStepSetup'] | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useForm();
  const confirm = useForm();
  const regenerate = useForm();
  const disable = useForm();
  return (
    <section aria-labelledby="two-step-h">
      <h2 id="two-step-h">Two-step verification</h2>
      {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />}
      {status.enabled ? (
        <>
          <p>
            <span class="pill finished">On</span> since <When iso={status.enabledAt} />. Signing in with your password also asks for a code from your authenticator app. {status.recoveryCodesLeft} of
            10 recovery codes left.
          </p>
          <form
            aria-labelledby="regenerate-h"
            onSubmit={regenerate.submit(async (d) => {
              const answer = await must(api.POST('/v1/me/two-step/recovery-codes', { body: { password: String(d.get('password') ?? '') } }));
              setCodes(answer.recoveryCodes);
              onChanged();
            })}
          >
            <h3 id="regenerate-h">New recovery codes</h3>
            <Field label="Password" name="password" type="password" autoComplete="current-password" required hint="The old codes stop working." error={regenerate.errorFor('/password')} />
            <ProblemBanner error={regenerate.formError(['/password'])} />
            <div>
              <button type="submit" class="secondary" disabled={regenerate.busy}>
                Regenerate recovery codes
              </button>
            </div>
          </form>
          <form
            aria-labelledby="disable-h"
            onSubmit={disable.submit(async (d) => {
              await must(api.POST('/v1/me/two-step/disable', { body: { password: String(d.get('password') ?? '') } }));
              setCodes(null);
              onChanged();
            })}
          >
            <h3 id="disable-h">Turn two-step verification off</h3>
            <Field
              label="Password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              hint="Your password alone will sign you in; the recovery codes stop working."
              error={disable.errorFor('/password')}
            />
            <ProblemBanner error={disable.formError(['/password'])} />
            <div>
              <button type="submit" class="danger" disabled={disable.busy}>
                Turn off two-step verification
              </button>
            </div>
          </form>
        </>
      ) : setup ? (
        <>
          <p>Add this account to your authenticator app: type the secret, or open the otpauth address on the device that has the app.</p>
          <ShownOnce label="The secret" value={setup.secret} />
          <p>
            otpauth address: <code>{setup.otpauthUrl}</code>
          </p>
          <form
            aria-label="Confirm two-step verification"
            onSubmit={confirm.submit(async (d) => {
              const answer = await must(api.POST('/v1/me/two-step/confirm', { body: { code: String(d.get('code') ?? '').trim() } }));
              setSetup(null);
              setCodes(answer.recoveryCodes);
              onChanged();
            })}
          >
            <Field label="Code from your authenticator app" name="code" inputMode="numeric" autoComplete="one-time-code" required hint="6 digits." error={confirm.errorFor('/code')} />
            <ProblemBanner error={confirm.formError(['/code'])} />
            <div class="actions">
              <button type="submit" disabled={confirm.busy}>
                Turn on two-step verification
              </button>
              <button type="button" class="secondary" onClick={() => setSetup(null)}>
                Cancel setup
              </button>
            </div>
          </form>
        </>
      ) : (
        <form
          aria-label="Set up two-step verification"
          onSubmit={start.submit(async () => {
            setSetup(await must(api.POST('/v1/me/two-step')));
          })}
        >
          <p>
            <span class="pill none">Off</span> A code from an authenticator app, asked after your password, keeps your account safe if the password leaks.
          </p>
          <ProblemBanner error={start.error} />
          <div>
            <button type="submit" disabled={start.busy}>
              Set up two-step verification
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

const supportsPasskeys = () => typeof PublicKeyCredential !== 'undefined' && 'parseCreationOptionsFromJSON' in PublicKeyCredential;

/** The person's passkeys (spec/passkeys.tsp): each signs in alone, without password or code. */
function Passkeys() {
  const list = useAsync(() => must(api.GET('/v1/passkeys')), []);
  const f = useForm();
  const form = useRef<HTMLFormElement>(null);
  return (
    <section aria-labelledby="passkeys-h">
      <h2 id="passkeys-h">Passkeys</h2>
      <ProblemBanner error={list.error} />
      {!list.data ? (
        <Loading what="your passkeys" />
      ) : list.data.data.length === 0 ? (
        <p>No passkeys yet.</p>
      ) : (
        <ul class="cards">
          {list.data.data.map((p) => (
            <li key={p.id} class="card">
              <strong>{p.name}</strong>
              <div class="muted">
                {p.backedUp ? 'Synced' : 'On one device'} · added <When iso={p.createdAt} /> · last used {p.lastUsedAt ? <When iso={p.lastUsedAt} /> : 'never'}
              </div>
              <ConfirmButton
                label={`Remove passkey ${p.name}`}
                title={`Remove the passkey “${p.name}”?`}
                body={<p>Signing in with it is refused from the next attempt.</p>}
                confirmLabel="Remove passkey"
                onConfirm={async () => {
                  await must(api.DELETE('/v1/passkeys/{id}', { params: { path: { id: p.id } } }));
                  list.reload();
                }}
              />
            </li>
          ))}
        </ul>
      )}
      {supportsPasskeys() ? (
        <form
          ref={form}
          aria-labelledby="add-passkey-h"
          onSubmit={f.submit(async (d) => {
            const options = await must(api.POST('/v1/passkey-registration/options'));
            let credential: Credential | null;
            try {
              credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.publicKey) });
            } catch (err) {
              throw err instanceof DOMException && err.name === 'NotAllowedError' ? new Error('Registering the passkey was cancelled or timed out.') : err;
            }
            if (!(credential instanceof PublicKeyCredential)) throw new Error('No passkey was created.');
            // PublicKeyCredentialJSON is untyped in the DOM library; the API validates its shape.
            const response: Schemas['PasskeyRegistrationResponse'] = credential.toJSON();
            await must(api.POST('/v1/passkeys', { body: { challengeId: options.challengeId, name: String(d.get('name') ?? '').trim(), response } }));
            form.current?.reset();
            list.reload();
          })}
        >
          <h3 id="add-passkey-h">Add a passkey</h3>
          <Field label="Passkey name" name="name" required maxLength={100} hint="Which device or password manager holds it, such as “Work laptop”." error={f.errorFor('/name')} />
          <ProblemBanner error={f.formError(['/name'])} />
          <div>
            <button type="submit" disabled={f.busy}>
              Register a passkey
            </button>
          </div>
        </form>
      ) : (
        <p class="muted">This browser cannot register passkeys.</p>
      )}
    </section>
  );
}
