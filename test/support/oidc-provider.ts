// A real OpenID Connect provider (oidc-provider) on 127.0.0.1 for the single sign-on tests, with
// one confidential client registered for the service's callback, accounts the test names, and a
// browser that drives its dev login form over HTTP with a cookie jar.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface LocalProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by id (the `sub`), with the email the provider vouches for. */
  accounts: Map<string, { email: string; emailVerified: boolean }>;
  close(): Promise<void>;
}

export async function startProvider(redirectUri: string): Promise<LocalProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'sitehealth';
  const clientSecret = 'provider-test-client-secret-0123456789';
  const accounts = new Map<string, { email: string; emailVerified: boolean }>();
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['oidc-test-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    async findAccount(_ctx, id) {
      const a = accounts.get(id);
      if (!a) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, email: a.email, email_verified: a.emailVerified }) };
    },
    // A first-party client: every account has granted it openid and email, so the login is the
    // only interaction.
    async loadExistingGrant(ctx) {
      const accountId = ctx.oidc.session!.accountId!;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
  });
  // Its development interactions warn once on stdout; the tests do not need to read that.
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A browser at the provider: follows its redirects and keeps its cookies. */
export async function loginAtProvider(authorizationUrl: string, accountId: string, opts: { until: string }): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  };
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(opts.until)) return new URL(url);
    let res = await send(url);
    if (res.status === 200 && new URL(url).pathname.startsWith('/interaction/')) {
      await res.text();
      res = await send(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ prompt: 'login', login: accountId }).toString() });
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`the provider answered ${res.status} at ${url}: ${(await res.text()).slice(0, 300)}`);
    await res.body?.cancel();
    url = new URL(location, url).href;
  }
  throw new Error('the provider redirected too often');
}
