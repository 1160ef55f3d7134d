import {
  changePassword,
  completeEmailVerification,
  completePasswordReset,
  csrfTokenFor,
  currentUser,
  listSessions,
  requestPasswordReset,
  revokeSession,
  revokeSessionsOf,
  sendEmailVerification,
  sessionCookie,
  signInWithPassword,
} from '../../core/access/index.ts';
import { keyActor } from '../../core/activity/index.ts';
import type { Handler } from '../handler-types.ts';

// People signing in (spec/sign-in.tsp). The session operations are `x-credential: session`, so
// `auth` is a session here: its keyId is the session's id.

export const signIn: Handler<'Sessions_create'> = async ({ db, body, client, config }) => {
  const { token, session } = await signInWithPassword(db, { email: body.email, password: body.password, client });
  const me = await currentUser(db, { userId: session.user_id, sessionId: session.id, csrfToken: csrfTokenFor(token) });
  return { status: 200, body: { status: 'signed_in', me }, headers: { 'set-cookie': sessionCookie(token, config.publicUrl) } };
};

export const list: Handler<'Sessions_list'> = async ({ db, auth }) => ({ status: 200, body: await listSessions(db, auth.userId, auth.keyId) });

export const remove: Handler<'Sessions_delete'> = async ({ db, auth, path, config }) => {
  await revokeSession(db, { userId: auth.userId, accountId: auth.accountId, sessionId: path.id, actor: keyActor(auth) });
  // Signing out this browser clears its cookie too.
  return { status: 204, headers: path.id.toLowerCase() === auth.keyId ? { 'set-cookie': sessionCookie(null, config.publicUrl) } : undefined };
};

export const signOutOthers: Handler<'CurrentUser_signOutOthers'> = async ({ db, auth }) => ({
  status: 200,
  body: { revoked: await revokeSessionsOf(db, { userId: auth.userId, accountId: auth.accountId, keep: auth.keyId, actor: keyActor(auth), reason: 'signed_out' }) },
});

export const me: Handler<'CurrentUser_get'> = async ({ db, auth, csrfToken }) => ({
  status: 200,
  body: await currentUser(db, { userId: auth.userId, sessionId: auth.keyId, csrfToken: csrfToken! }),
});

export const changeOwnPassword: Handler<'CurrentUser_changePassword'> = async ({ db, auth, body, client }) => {
  await changePassword(db, { userId: auth.userId, sessionId: auth.keyId, currentPassword: body.currentPassword, newPassword: body.newPassword, client });
  return { status: 204 };
};

export const sendVerification: Handler<'CurrentUser_sendVerification'> = async ({ db, auth, mail, config }) => {
  await sendEmailVerification(db, mail, { userId: auth.userId, publicUrl: config.publicUrl });
  return { status: 202 };
};

export const requestReset: Handler<'PasswordReset_request'> = async ({ db, body, mail, config }) => {
  await requestPasswordReset(db, mail, { email: body.email, publicUrl: config.publicUrl });
  return { status: 202 };
};

export const completeReset: Handler<'PasswordReset_complete'> = async ({ db, body }) => {
  await completePasswordReset(db, { token: body.token, password: body.password });
  return { status: 204 };
};

export const verifyEmail: Handler<'EmailVerification_complete'> = async ({ db, body }) => {
  await completeEmailVerification(db, body.token);
  return { status: 204 };
};
