import { bindingCookie, completeSso, configureSso, getSsoSettings, removeSso, sessionCookie, ssoSettings, startSso } from '../../core/access/index.ts';
import { keyActor } from '../../core/activity/index.ts';
import { toIso } from '../../core/platform/index.ts';
import type { Handler } from '../handler-types.ts';

// Single sign-on (spec/sso.tsp): the account's settings (owners of every workspace), and the two
// public steps of signing in through the provider.

export const get: Handler<'SingleSignOn_get'> = async ({ db, auth, config }) => ({ status: 200, body: await getSsoSettings(db, auth, config.publicUrl) });

export const configure: Handler<'SingleSignOn_configure'> = async ({ db, auth, body, config }) => ({
  status: 200,
  body: await configureSso(db, ssoSettings(config), { auth, actor: keyActor(auth), input: body }),
});

export const remove: Handler<'SingleSignOn_remove'> = async ({ db, auth }) => {
  await removeSso(db, { auth, actor: keyActor(auth) });
  return { status: 204 };
};

export const start: Handler<'SsoSignIn_start'> = async ({ db, body, config }) => {
  const attempt = await startSso(db, ssoSettings(config), body);
  return {
    status: 200,
    body: { authorizationUrl: attempt.authorizationUrl, expiresAt: toIso(attempt.expiresAt)! },
    headers: { 'set-cookie': bindingCookie(attempt.binding, config.publicUrl) },
  };
};

export const callback: Handler<'SsoSignIn_callback'> = async ({ db, query, cookies, client, config }) => {
  const { token } = await completeSso(db, ssoSettings(config), { query, binding: cookies.sitehealth_sso, client });
  return { status: 302, headers: { location: `${config.publicUrl.replace(/\/+$/, '')}/`, 'set-cookie': sessionCookie(token, config.publicUrl) } };
};
