import type { Me, PasswordChange, RecoveryCodes, SessionList, SessionsRevoked, SignedIn, SignInRequest, TwoStepRequired, TwoStepSetup, TwoStepSignInRequest } from '../types.js';
import { Resource, unwrap, unwrapDeleted, unwrapDone, type Deleted, type Done, type RequestOptions, type WithResponse } from './resource.js';

/** What a client signed in as a person needs: the session cookie's token and its CSRF token. */
export interface SessionCredential {
  token: string;
  csrfToken: string;
}

/**
 * The session a sign-in answered with, for `createClient({ session })`: the token from its
 * `Set-Cookie` header and the CSRF token from its body. Null when the answer set no cookie.
 */
export function sessionFromSignIn(signedIn: WithResponse<SignedIn | TwoStepRequired>): SessionCredential | null {
  if (signedIn.status !== 'signed_in') return null;
  const cookies = signedIn.lastResponse.headers.getSetCookie?.() ?? [signedIn.lastResponse.headers.get('set-cookie') ?? ''];
  const token = cookies.map((c) => /^sitehealth_session=([^;]+)/.exec(c)?.[1]).find(Boolean);
  return token ? { token, csrfToken: signedIn.me.csrfToken } : null;
}

/**
 * `/v1/sessions`: signing in (no credential), and the devices of the person signed in (a
 * client created with `session`; an API key gets `session_required`).
 */
export class Sessions extends Resource {
  /**
   * `Sessions_create`: email and password; `signed_in` (see `sessionFromSignIn`), or
   * `two_step_required` with a challenge for `twoStepSignIn.complete`. Not retried by default.
   */
  create(body: SignInRequest, options?: RequestOptions): Promise<WithResponse<SignedIn | TwoStepRequired>> {
    return unwrap(this.client.POST('/v1/sessions', { body, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `Sessions_list`: the user's signed-in devices, newest first. */
  list(options?: RequestOptions): Promise<WithResponse<SessionList>> {
    return unwrap(this.client.GET('/v1/sessions', { ...this.call(options) }));
  }

  /** `Sessions_delete`: signs one device out (the current one: signs out). */
  delete(id: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/sessions/{id}', { params: { path: { id } }, ...this.call(options) }), id);
  }

}

/** `/v1/me`: the person signed in (session only). */
export class CurrentUser extends Resource {
  /** `CurrentUser_get`: the user, the current session and its CSRF token. */
  get(options?: RequestOptions): Promise<WithResponse<Me>> {
    return unwrap(this.client.GET('/v1/me', { ...this.call(options) }));
  }

  /** `CurrentUser_signOutOthers`: signs every other device out. */
  signOutOthers(options?: RequestOptions): Promise<WithResponse<SessionsRevoked>> {
    return unwrap(this.client.POST('/v1/me/sign-out-others', { ...this.call(options) }));
  }

  /** `CurrentUser_startTwoStep`: a TOTP secret to add to an app, shown once. */
  startTwoStep(options?: RequestOptions): Promise<WithResponse<TwoStepSetup>> {
    return unwrap(this.client.POST('/v1/me/two-step', { ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `CurrentUser_confirmTwoStep`: turns two-step on with a code; the recovery codes, shown once. */
  confirmTwoStep(code: string, options?: RequestOptions): Promise<WithResponse<RecoveryCodes>> {
    return unwrap(this.client.POST('/v1/me/two-step/confirm', { body: { code }, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `CurrentUser_disableTwoStep`: turns two-step off, with the password again. */
  disableTwoStep(password: string, options?: RequestOptions): Promise<WithResponse<Done>> {
    return unwrapDone(this.client.POST('/v1/me/two-step/disable', { body: { password }, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `CurrentUser_regenerateRecoveryCodes`: ten new codes (the old ones stop working), with the password again. */
  regenerateRecoveryCodes(password: string, options?: RequestOptions): Promise<WithResponse<RecoveryCodes>> {
    return unwrap(this.client.POST('/v1/me/two-step/recovery-codes', { body: { password }, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `CurrentUser_changePassword`: every other session is signed out. Not retried. */
  changePassword(body: PasswordChange, options?: RequestOptions): Promise<WithResponse<Done>> {
    return unwrapDone(this.client.PUT('/v1/me/password', { body, ...this.call(options) }));
  }

  /** `CurrentUser_sendVerification`: mails a verification link. */
  sendVerification(options?: RequestOptions): Promise<WithResponse<Done>> {
    return unwrapDone(this.client.POST('/v1/me/email-verification', { ...this.call({ maxRetries: 0, ...options }) }));
  }
}

/** `/v1/two-step-sign-in`: the challenge of the first step is the credential. */
export class TwoStepSignIn extends Resource {
  /** `TwoStepSignIn_complete`: the challenge and a TOTP `code` or a `recoveryCode`. Not retried (a code works once). */
  complete(body: TwoStepSignInRequest, options?: RequestOptions): Promise<WithResponse<SignedIn>> {
    return unwrap(this.client.POST('/v1/two-step-sign-in', { body, ...this.call({ maxRetries: 0, ...options }) }));
  }
}

/** `/v1/password-reset`: no credential. */
export class PasswordReset extends Resource {
  /** `PasswordReset_request`: always accepted; a link is mailed if a user has the address. */
  request(email: string, options?: RequestOptions): Promise<WithResponse<Done>> {
    return unwrapDone(this.client.POST('/v1/password-reset', { body: { email }, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `PasswordReset_complete`: the token from the email and the new password. */
  complete(token: string, password: string, options?: RequestOptions): Promise<WithResponse<Done>> {
    return unwrapDone(this.client.POST('/v1/password-reset/complete', { body: { token, password }, ...this.call({ maxRetries: 0, ...options }) }));
  }
}

/** `/v1/email-verification`: no credential. */
export class EmailVerification extends Resource {
  /** `EmailVerification_complete`: the token from the email. */
  complete(token: string, options?: RequestOptions): Promise<WithResponse<Done>> {
    return unwrapDone(this.client.POST('/v1/email-verification/complete', { body: { token }, ...this.call({ maxRetries: 0, ...options }) }));
  }
}
