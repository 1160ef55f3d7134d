import {
  csrfTokenFor,
  currentUser,
  listPasskeys,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  registerPasskey,
  removePasskey,
  sessionCookie,
  signInWithPasskey,
} from '../../core/access/index.ts';
import { keyActor } from '../../core/activity/index.ts';
import type { Handler } from '../handler-types.ts';

// Passkeys (spec/passkeys.tsp). Registration, listing and removal are `x-credential: session`, so
// `auth` is the person's session; sign-in is `x-public` and answers as password sign-in does.

export const registrationOptions: Handler<'Passkeys_registrationOptions'> = async ({ db, auth, config }) => ({
  status: 200,
  body: await passkeyRegistrationOptions(db, { userId: auth.userId, publicUrl: config.publicUrl }),
});

export const create: Handler<'Passkeys_create'> = async ({ db, auth, body, config }) => ({
  status: 201,
  body: await registerPasskey(db, { userId: auth.userId, accountId: auth.accountId, publicUrl: config.publicUrl, actor: keyActor(auth), body }),
});

export const list: Handler<'Passkeys_list'> = async ({ db, auth }) => ({ status: 200, body: await listPasskeys(db, auth.userId) });

export const remove: Handler<'Passkeys_delete'> = async ({ db, auth, path }) => {
  await removePasskey(db, { userId: auth.userId, accountId: auth.accountId, passkeyId: path.id, actor: keyActor(auth) });
  return { status: 204 };
};

export const signInOptions: Handler<'PasskeySignIn_options'> = async ({ db, config, client }) => ({
  status: 200,
  body: await passkeySignInOptions(db, { publicUrl: config.publicUrl, client }),
});

export const signIn: Handler<'PasskeySignIn_create'> = async ({ db, body, client, config }) => {
  const { token, session } = await signInWithPasskey(db, { publicUrl: config.publicUrl, client, body });
  const me = await currentUser(db, { userId: session.user_id, sessionId: session.id, csrfToken: csrfTokenFor(token) });
  return { status: 200, body: { status: 'signed_in', me }, headers: { 'set-cookie': sessionCookie(token, config.publicUrl) } };
};
