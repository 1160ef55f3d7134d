import { useEffect, useState } from 'preact/hooks';
import { api, must, type Schemas } from '../api.ts';
import { Link } from '../router.tsx';
import { Field, PageTitle, ProblemBanner, useForm } from '../ui.tsx';

type Me = Schemas['Me'];
interface Props {
  onSignedIn: (me: Me) => void;
}

/** A token mailed in a link's fragment (`#token=`): fragments never reach a server or a log. */
function tokenFromFragment(): string | null {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  // Gone from the address bar (and its history entry) as soon as it is read.
  if (token) history.replaceState(null, '', location.pathname + location.search);
  return token;
}

/**
 * Every way in (spec/sign-in.tsp, spec/passkeys.tsp, spec/sso.tsp): a password, then a code from
 * the authenticator app or a recovery code when two-step is on; a passkey; or the account's
 * single sign-on provider.
 */
export function SignInPage({ onSignedIn }: Props) {
  const [challenge, setChallenge] = useState<Schemas['TwoStepRequired'] | null>(null);
  return (
    <>
      <PageTitle>Sign in to sitehealth</PageTitle>
      {challenge ? <TwoStepForm challenge={challenge} onSignedIn={onSignedIn} onRestart={() => setChallenge(null)} /> : <PasswordForm onSignedIn={onSignedIn} onTwoStep={setChallenge} />}
      {!challenge && (
        <>
          <div class="or" aria-hidden="true">
            or
          </div>
          <PasskeyButton onSignedIn={onSignedIn} />
          <SsoForm />
          <p>
            <Link href="/reset-password">Forgot your password?</Link>
          </p>
        </>
      )}
    </>
  );
}

function PasswordForm({ onSignedIn, onTwoStep }: Props & { onTwoStep: (c: Schemas['TwoStepRequired']) => void }) {
  const f = useForm();
  return (
    <form
      aria-label="Sign in with your password"
      onSubmit={f.submit(async (d) => {
        const answer = await must(api.POST('/v1/sessions', { body: { email: String(d.get('email')), password: String(d.get('password')) } }));
        if (answer.status === 'signed_in') onSignedIn(answer.me);
        else onTwoStep(answer);
      })}
    >
      <Field label="Email" name="email" type="email" autoComplete="username webauthn" required error={f.errorFor('/email')} />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required error={f.errorFor('/password')} />
      <ProblemBanner error={f.formError(['/email', '/password'])} />
      <button type="submit" disabled={f.busy}>
        Sign in
      </button>
    </form>
  );
}

function TwoStepForm({ challenge, onSignedIn, onRestart }: Props & { challenge: Schemas['TwoStepRequired']; onRestart: () => void }) {
  const [useRecovery, setUseRecovery] = useState(false);
  const f = useForm();
  return (
    <form
      aria-label="Two-step verification"
      onSubmit={f.submit(async (d) => {
        const value = String(d.get('code') ?? '').trim();
        const body = useRecovery ? { challenge: challenge.challenge, recoveryCode: value } : { challenge: challenge.challenge, code: value };
        const answer = await must(api.POST('/v1/two-step-sign-in', { body }));
        onSignedIn(answer.me);
      })}
    >
      <h2>Two-step verification</h2>
      {useRecovery ? (
        <Field label="Recovery code" name="code" autoComplete="off" required hint="One of the ten codes you saved, such as ABCD-EFGH-2345." error={f.errorFor('/recoveryCode')} />
      ) : (
        <Field label="Code from your authenticator app" name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required error={f.errorFor('/code')} />
      )}
      <ProblemBanner error={f.formError(['/code', '/recoveryCode'])} />
      <button type="submit" disabled={f.busy}>
        Verify
      </button>
      {challenge.methods.includes('recovery_code') && (
        <button type="button" class="link" onClick={() => setUseRecovery(!useRecovery)}>
          {useRecovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
        </button>
      )}
      <button type="button" class="link" onClick={onRestart}>
        Start again
      </button>
    </form>
  );
}

function PasskeyButton({ onSignedIn }: Props) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (typeof PublicKeyCredential === 'undefined' || !('parseRequestOptionsFromJSON' in PublicKeyCredential)) return null;
  return (
    <div class="passkey">
      <button
        type="button"
        class="secondary"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            const options = await must(api.POST('/v1/passkey-sign-in/options'));
            const credential = (await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.publicKey) })) as PublicKeyCredential | null;
            if (!credential) throw new Error('No passkey was chosen.');
            const response = credential.toJSON() as Schemas['PasskeySignInResponse'];
            const answer = await must(api.POST('/v1/passkey-sign-in', { body: { challengeId: options.challengeId, response } }));
            onSignedIn(answer.me);
          } catch (err) {
            setError(err instanceof DOMException && err.name === 'NotAllowedError' ? new Error('The passkey sign-in was cancelled or timed out.') : err);
          } finally {
            setBusy(false);
          }
        }}
      >
        Sign in with a passkey
      </button>
      <ProblemBanner error={error} />
    </div>
  );
}

function SsoForm() {
  const f = useForm();
  return (
    <form
      aria-label="Sign in with single sign-on"
      class="sso"
      onSubmit={f.submit(async (d) => {
        const started = await must(api.POST('/v1/sso/start', { body: { email: String(d.get('email')) } }));
        location.assign(started.authorizationUrl);
      })}
    >
      <Field label="Work email for single sign-on" name="email" type="email" autoComplete="email" required error={f.errorFor('/email')} />
      <ProblemBanner error={f.formError(['/email'])} />
      <button type="submit" class="secondary" disabled={f.busy}>
        Continue with single sign-on
      </button>
    </form>
  );
}

export function AcceptInvitationPage({ onSignedIn }: Props) {
  const [token] = useState(tokenFromFragment);
  const f = useForm();
  const [accepted, setAccepted] = useState<string | null>(null);
  if (!token) return <MissingToken what="invitation" />;
  if (accepted) {
    return (
      <>
        <PageTitle>Invitation accepted</PageTitle>
        <p>{accepted}</p>
        <Link href="/sign-in">Sign in</Link>
      </>
    );
  }
  return (
    <>
      <PageTitle>Join a workspace</PageTitle>
      <form
        aria-label="Accept the invitation"
        onSubmit={f.submit(async (d) => {
          const password = String(d.get('password') ?? '');
          const answer = await must(api.POST('/v1/invitations/accept', { body: password ? { token, password } : { token } }));
          // Accepting never signs in by itself: sign in with the password just chosen.
          const session = password ? await must(api.POST('/v1/sessions', { body: { email: answer.email, password } })).catch(() => null) : null;
          if (session?.status === 'signed_in') onSignedIn(session.me);
          else setAccepted(`You are now a member as ${answer.email}.`);
        })}
      >
        <Field label="Choose a password" name="password" type="password" autoComplete="new-password" hint="At least 10 characters. Leave empty if you already have an account." error={f.errorFor('/password')} />
        <ProblemBanner error={f.formError(['/password'])} />
        <button type="submit" disabled={f.busy}>
          Accept invitation
        </button>
      </form>
    </>
  );
}

export function ResetPasswordPage(_: Props) {
  const [token] = useState(tokenFromFragment);
  const f = useForm();
  const [done, setDone] = useState<string | null>(null);
  if (done) {
    return (
      <>
        <PageTitle>Check your inbox</PageTitle>
        <p role="status">{done}</p>
        <Link href="/sign-in">Back to sign in</Link>
      </>
    );
  }
  if (!token) {
    return (
      <>
        <PageTitle>Reset your password</PageTitle>
        <form
          aria-label="Request a password reset"
          onSubmit={f.submit(async (d) => {
            await must(api.POST('/v1/password-reset', { body: { email: String(d.get('email')) } }));
            setDone('If an account uses that address, a link to choose a new password is on its way. It works once, for 1 hour.');
          })}
        >
          <Field label="Email" name="email" type="email" autoComplete="email" required error={f.errorFor('/email')} />
          <ProblemBanner error={f.formError(['/email'])} />
          <button type="submit" disabled={f.busy}>
            Send reset link
          </button>
        </form>
      </>
    );
  }
  return (
    <>
      <PageTitle>Choose a new password</PageTitle>
      <form
        aria-label="Choose a new password"
        onSubmit={f.submit(async (d) => {
          await must(api.POST('/v1/password-reset/complete', { body: { token, password: String(d.get('password')) } }));
          setDone('Your password is changed and every session of your account was signed out. Sign in with the new password.');
        })}
      >
        <Field label="New password" name="password" type="password" autoComplete="new-password" required hint="At least 10 characters." error={f.errorFor('/password')} />
        <ProblemBanner error={f.formError(['/password'])} />
        <button type="submit" disabled={f.busy}>
          Change password
        </button>
      </form>
    </>
  );
}

export function VerifyEmailPage(_: Props) {
  const [token] = useState(tokenFromFragment);
  const [state, setState] = useState<{ error?: unknown; done?: boolean }>({});
  useEffect(() => {
    if (token) must(api.POST('/v1/email-verification/complete', { body: { token } })).then(() => setState({ done: true }), (error: unknown) => setState({ error }));
  }, [token]);
  if (!token) return <MissingToken what="verification" />;
  return (
    <>
      <PageTitle>Verify your email</PageTitle>
      {state.done && <p role="status">Your email address is verified.</p>}
      <ProblemBanner error={state.error} />
      <Link href="/">Go to the dashboard</Link>
    </>
  );
}

function MissingToken({ what }: { what: string }) {
  return (
    <>
      <PageTitle>Link incomplete</PageTitle>
      <p>This {what} link has no token. Open the link from the email again, whole.</p>
    </>
  );
}
