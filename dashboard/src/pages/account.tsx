import { api, must, type Schemas } from '../api.ts';
import { ConfirmButton, Loading, PageTitle, ProblemBanner, When, useAsync } from '../ui.tsx';

const METHOD_TEXT: Record<string, string> = { password: 'Password', passkey: 'Passkey', sso: 'Single sign-on' };

/** The person signed in: where they are signed in (devices), and signing out elsewhere. */
export function AccountPage({ me }: { me: Schemas['Me'] }) {
  const sessions = useAsync(() => must(api.GET('/v1/sessions')), []);
  return (
    <>
      <PageTitle>Your account</PageTitle>
      <p>
        Signed in as <strong>{me.email}</strong>
        {me.emailVerified ? '' : ' (email not verified yet)'}.
      </p>
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
