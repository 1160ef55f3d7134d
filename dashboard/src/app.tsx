import { useEffect, useState } from 'preact/hooks';
import { api, must, useCsrfToken, whenSignedOut, type Schemas } from './api.ts';
import { Link, match, navigate, useLocation } from './router.tsx';
import { Loading, PageTitle, ProblemBanner, WorkspaceContext, useAsync } from './ui.tsx';
import { SignInPage, AcceptInvitationPage, ResetPasswordPage, VerifyEmailPage } from './pages/sign-in.tsx';
import { PAGES, type PageProps } from './pages/index.tsx';

type Me = Schemas['Me'];

/** Pages anyone may open: signing in and the links mailed to people. */
const PUBLIC: Record<string, (p: { onSignedIn: (me: Me) => void }) => preact.JSX.Element> = {
  '/sign-in': SignInPage,
  '/invitations/accept': AcceptInvitationPage,
  '/reset-password': ResetPasswordPage,
  '/verify-email': VerifyEmailPage,
};

export function App() {
  const { path } = useLocation();
  const [me, setMe] = useState<Me | null | undefined>(undefined);

  const signedIn = (m: Me | null) => {
    useCsrfToken(m?.csrfToken ?? null);
    setMe(m);
  };

  useEffect(() => {
    whenSignedOut(() => {
      signedIn(null);
      if (!PUBLIC[location.pathname]) navigate(`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    });
    // Both at once: a signed-in visitor needs both before the first page, so no waterfall.
    workspacesAtBoot = listWorkspaces();
    api.GET('/v1/me').then(
      ({ data }) => signedIn(data ?? null),
      () => signedIn(null),
    );
  }, []);

  const Public = PUBLIC[path];
  if (Public) {
    return (
      <main id="main" class="narrow">
        <Public
          onSignedIn={(m) => {
            // The list asked for at load was asked before signing in (a 401): ask again.
            workspacesAtBoot = null;
            signedIn(m);
            const next = new URLSearchParams(location.search).get('next');
            navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/');
          }}
        />
      </main>
    );
  }
  if (me === undefined) return <Loading what="your session" />;
  if (me === null) {
    navigate(`/sign-in?next=${encodeURIComponent(path + location.search)}`, { replace: true });
    return null;
  }
  return <SignedIn me={me} path={path} onSignedOut={() => signedIn(null)} />;
}

/** The workspace list asked for with `GET /v1/me` when the page loads; used once. */
let workspacesAtBoot: ReturnType<typeof listWorkspaces> | null = null;
const listWorkspaces = () => api.GET('/v1/workspaces');

function SignedIn({ me, path, onSignedOut }: { me: Me; path: string; onSignedOut: () => void }) {
  const workspaces = useAsync(() => {
    const early = workspacesAtBoot;
    workspacesAtBoot = null;
    return must(early ?? listWorkspaces());
  }, []);
  const wsId = match('/w/:ws', path.split('/').slice(0, 3).join('/'))?.ws;
  const section = path.split('/')[3] ?? 'deploys';
  const list = workspaces.data?.data;
  const workspace = list?.find((w) => w.id === wsId) ?? null;

  useEffect(() => {
    if (path === '/' && list?.length) navigate(`/w/${list[0].id}/deploys`, { replace: true });
  }, [path, list]);

  const signOut = async () => {
    await must(api.DELETE('/v1/sessions/{id}', { params: { path: { id: me.session.id } } })).catch(() => undefined);
    onSignedOut();
    navigate('/sign-in');
  };

  let content;
  if (workspaces.error) content = <ProblemBanner error={workspaces.error} />;
  else if (!list) content = <Loading what="your workspaces" />;
  else if (path === '/account') {
    const Account = PAGES.account;
    content = <Account me={me} />;
  } else if (path === '/') {
    content = list.length ? <Loading what="the deploys" /> : (
      <>
        <PageTitle>No workspace yet</PageTitle>
        <p>You are not a member of any workspace. Ask an owner to invite you, or create one with the API.</p>
      </>
    );
  } else if (!workspace) {
    content = (
      <>
        <PageTitle>Not found</PageTitle>
        <p>There is no such workspace, or you are not a member of it.</p>
      </>
    );
  } else content = <WorkspacePage workspace={workspace} path={path} me={me} onWorkspaceChanged={workspaces.reload} />;

  return (
    <WorkspaceContext.Provider value={workspace}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand">
          sitehealth
        </Link>
        {list && list.length > 0 && (
          <div class="switcher">
            <label for="workspace-switcher">Workspace</label>
            <select id="workspace-switcher" value={workspace?.id ?? ''} onChange={(e) => navigate(`/w/${(e.currentTarget as HTMLSelectElement).value}/${section}`)}>
              {!workspace && <option value="">Choose…</option>}
              {list.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <nav aria-label="You" class="you">
          <Link href="/account" aria-current={path === '/account' ? 'page' : undefined}>
            {me.email}
          </Link>
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </nav>
      </header>
      {workspace && <SectionNav workspaceId={workspace.id} section={section} />}
      <main id="main">{content}</main>
    </WorkspaceContext.Provider>
  );
}

export const SECTIONS: Array<[section: string, label: string]> = [
  ['deploys', 'Deploys'],
  ['health', 'Site health'],
  ['webhooks', 'Webhooks'],
  ['logs', 'Request logs'],
  ['activity', 'Activity'],
  ['keys', 'API keys'],
  ['members', 'Members'],
  ['settings', 'Settings'],
];

function SectionNav({ workspaceId, section }: { workspaceId: string; section: string }) {
  return (
    <nav aria-label="Workspace" class="sections">
      <ul>
        {SECTIONS.map(([s, label]) => (
          <li key={s}>
            <Link href={`/w/${workspaceId}/${s}`} aria-current={s === section ? 'page' : undefined}>
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function WorkspacePage({ workspace, path, me, onWorkspaceChanged }: { workspace: Schemas['Workspace']; path: string; me: Me; onWorkspaceChanged: () => void }) {
  const rest = '/' + path.split('/').slice(3).join('/');
  for (const [pattern, Page] of Object.entries(PAGES.workspace)) {
    const params = match(pattern, rest);
    if (params) {
      const props: PageProps = { workspace, params, me, onWorkspaceChanged };
      return <Page key={path} {...props} />;
    }
  }
  return (
    <>
      <PageTitle>Not found</PageTitle>
      <p>This page does not exist.</p>
    </>
  );
}
