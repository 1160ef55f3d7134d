import {
  changePassword,
  completeChallenge,
  confirmTwoStep,
  disableOwnTwoStep,
  regenerateRecoveryCodes,
  startTwoStep,
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
import type { Db, Session } from '../../core/db/index.ts';
import { ValidationFailed, type Config } from '../../core/platform/index.ts';
import { keyringFor } from '../../core/secrets/index.ts';
import type { Handler } from '../handler-types.ts';

// People signing in (spec/sign-in.tsp). The session operations are `x-credential: session`, so
// `auth` is a session here: its keyId is the session's id.

/** The answer of a sign-in that started a session: the person, and the cookie. */
async function signedIn(db: Db, config: Config, { token, session }: { token: string; session: Session }) {
  const me = await currentUser(db, { userId: session.user_id, sessionId: session.id, csrfToken: csrfTokenFor(token) });
  return { status: 200 as const, body: { status: 'signed_in' as const, me }, headers: { 'set-cookie': sessionCookie(token, config.publicUrl) } };
}

export const signIn: Handler<'Sessions_create'> = async ({ db, body, client, config }) => {
  const outcome = await signInWithPassword(db, { email: body.email, password: body.password, client });
  if ('twoStep' in outcome) return { status: 200, body: outcome.twoStep };
  return signedIn(db, config, outcome);
};

export const completeTwoStep: Handler<'TwoStepSignIn_complete'> = async ({ db, body, client, config }) => {
  if ((body.code === undefined) === (body.recoveryCode === undefined)) {
    throw new ValidationFailed('Send exactly one of code and recoveryCode.', [{ in: 'body', path: body.code === undefined ? '/code' : '/recoveryCode', message: 'send exactly one of code and recoveryCode' }]);
  }
  return signedIn(db, config, await completeChallenge(db, keyringFor(config), { challenge: body.challenge, code: body.code, recoveryCode: body.recoveryCode, client }));
};

export const startOwnTwoStep: Handler<'CurrentUser_startTwoStep'> = async ({ db, auth, config }) => ({ status: 200, body: await startTwoStep(db, keyringFor(config), auth.userId) });

export const confirmOwnTwoStep: Handler<'CurrentUser_confirmTwoStep'> = async ({ db, auth, body, config }) => ({
  status: 200,
  body: await confirmTwoStep(db, keyringFor(config), { userId: auth.userId, code: body.code, actor: keyActor(auth) }),
});

export const disableOwn: Handler<'CurrentUser_disableTwoStep'> = async ({ db, auth, body, client }) => {
  await disableOwnTwoStep(db, { userId: auth.userId, password: body.password, actor: keyActor(auth), client });
  return { status: 204 };
};

export const regenerateCodes: Handler<'CurrentUser_regenerateRecoveryCodes'> = async ({ db, auth, body, client }) => ({
  status: 200,
  body: await regenerateRecoveryCodes(db, { userId: auth.userId, password: body.password, actor: keyActor(auth), client }),
});

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
