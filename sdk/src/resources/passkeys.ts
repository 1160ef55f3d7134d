import type { Passkey, PasskeyCreate, PasskeyList, PasskeyRegistrationOptions, PasskeySignInOptions, PasskeySignInRequest, SignedIn } from '../types.js';
import { Resource, unwrap, unwrapDeleted, type Deleted, type RequestOptions, type WithResponse } from './resource.js';

/**
 * The passkeys of the person signed in (a client created with `session`; an API key gets
 * `session_required`). Registering takes two calls around the browser's
 * `navigator.credentials.create()`: `registrationOptions()`, then `create()` with its answer.
 */
export class Passkeys extends Resource {
  /** `Passkeys_registrationOptions`: a challenge (usable once, for 5 minutes) and the options for the browser. Not retried. */
  registrationOptions(options?: RequestOptions): Promise<WithResponse<PasskeyRegistrationOptions>> {
    return unwrap(this.client.POST('/v1/passkey-registration/options', { ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `Passkeys_create`: the browser's answer to the challenge, and a name; stores the passkey. Not retried: a challenge works once. */
  create(body: PasskeyCreate, options?: RequestOptions): Promise<WithResponse<Passkey>> {
    return unwrap(this.client.POST('/v1/passkeys', { body, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `Passkeys_list`: the user's passkeys, oldest first. */
  list(options?: RequestOptions): Promise<WithResponse<PasskeyList>> {
    return unwrap(this.client.GET('/v1/passkeys', { ...this.call(options) }));
  }

  /** `Passkeys_delete`: removes a passkey; signing in with it is refused from then on. */
  delete(id: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/passkeys/{id}', { params: { path: { id } }, ...this.call(options) }), id);
  }
}

/**
 * `/v1/passkey-sign-in`: passwordless sign-in, no credential. `options()`, then the browser's
 * `navigator.credentials.get()`, then `create()` with its answer; see `sessionFromSignIn`.
 */
export class PasskeySignIn extends Resource {
  /** `PasskeySignIn_options`: a sign-in challenge (usable once, for 5 minutes). Not retried. */
  options(options?: RequestOptions): Promise<WithResponse<PasskeySignInOptions>> {
    return unwrap(this.client.POST('/v1/passkey-sign-in/options', { ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `PasskeySignIn_create`: the browser's answer; answers as `sessions.create` does. Not retried. */
  create(body: PasskeySignInRequest, options?: RequestOptions): Promise<WithResponse<SignedIn>> {
    return unwrap(this.client.POST('/v1/passkey-sign-in', { body, ...this.call({ maxRetries: 0, ...options }) }));
  }
}
