import * as oidc from 'openid-client';
import { FetchError, guardedFetch } from '../net/index.ts';
import { DomainError } from '../platform/index.ts';

// The one way this service talks to an account's OpenID Connect provider (spec/sso.tsp):
// openid-client over core/net's guarded fetch, so discovery, the token exchange and the key set
// are address-checked like webhooks (ALLOW_PRIVATE_NETWORK opens loopback and private ranges, and
// then an http issuer too, for a provider run locally).

export interface ProviderSettings {
  allowPrivateNetwork: boolean;
  /** One call to the provider, everything included. */
  timeoutMs: number;
}

export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export class SsoProviderError extends DomainError {
  constructor(detail: string) {
    super(400, 'sso_provider_error', 'Identity provider error', detail);
  }
}

export class SsoTokenInvalid extends DomainError {
  constructor(detail: string) {
    super(400, 'sso_token_invalid', 'ID token invalid', detail);
  }
}

/** A discovery document, the token answer and the key set are small; a megabyte is plenty. */
const MAX_BODY_BYTES = 1024 * 1024;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function providerFetch(s: ProviderSettings): oidc.CustomFetch {
  return async (url, options) => {
    const method = options.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new TypeError(`a provider is only read and sent codes, not ${method}`);
    const body = options.body === undefined || options.body === null ? undefined : typeof options.body === 'string' ? options.body : options.body instanceof URLSearchParams ? options.body.toString() : new Uint8Array(options.body as ArrayBuffer);
    const r = await guardedFetch(url, {
      method,
      headers: options.headers,
      body,
      allowPrivateNetwork: s.allowPrivateNetwork,
      httpsOnly: !s.allowPrivateNetwork,
      followRedirects: false,
      timeoutMs: s.timeoutMs,
      maxBodyBytes: MAX_BODY_BYTES,
      signal: options.signal ?? undefined,
      userAgent: 'sitehealth',
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(r.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    return new Response(NULL_BODY_STATUSES.has(r.status) ? null : new Uint8Array(r.body), { status: r.status, headers });
  };
}

/** What went wrong with the provider, in words for the problem's detail (never a secret). */
function describe(err: unknown): string {
  if (err instanceof FetchError) return err.code === 'blocked_address' ? 'its address is not public (a provider on this machine or a private network needs ALLOW_PRIVATE_NETWORK=1)' : err.message;
  if (err instanceof oidc.AuthorizationResponseError || err instanceof oidc.ResponseBodyError) return `it answered ${err.error}${err.error_description ? `: ${err.error_description}` : ''}`;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof FetchError) return describe(cause);
  return err instanceof Error ? err.message : String(err);
}

const TOKEN_CHECKS = new Set(['OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'OAUTH_KEY_SELECTION_FAILED']);

/** The refusal for a failure of the callback's exchange: the ID token's own checks, or the provider. */
function exchangeRefusal(err: unknown): DomainError {
  const code = (err as { code?: string }).code;
  const text = err instanceof Error ? `${err.message} ${(err.cause as Error | undefined)?.message ?? ''}` : '';
  if ((code && TOKEN_CHECKS.has(code)) || /ID Token|JWS|signature/i.test(text)) return new SsoTokenInvalid(`The ID token is not valid for this sign-in: ${describe((err as Error).cause ?? err)}.`);
  return new SsoProviderError(`The identity provider refused the sign-in: ${describe(err)}.`);
}

/** The provider's configuration, discovered; a provider that cannot be used is sso_provider_error. */
export async function discoverProvider(c: ProviderClient, s: ProviderSettings): Promise<oidc.Configuration> {
  const fetcher = providerFetch(s);
  try {
    const config = await oidc.discovery(new URL(c.issuer), c.clientId, { redirect_uris: [c.redirectUri], response_types: ['code'] }, oidc.ClientSecretBasic(c.clientSecret), {
      [oidc.customFetch]: fetcher,
      ...(s.allowPrivateNetwork ? { execute: [oidc.allowInsecureRequests] } : {}),
      timeout: Math.ceil(s.timeoutMs / 1000),
    });
    config[oidc.customFetch] = fetcher;
    return config;
  } catch (err) {
    throw new SsoProviderError(`The issuer ${c.issuer} could not be discovered: ${describe(err)}.`);
  }
}

/** The authorization URL of one attempt: code flow, PKCE S256, state and nonce. */
export async function authorizationUrl(config: oidc.Configuration, f: { redirectUri: string; state: string; nonce: string; codeVerifier: string }): Promise<string> {
  return oidc
    .buildAuthorizationUrl(config, {
      redirect_uri: f.redirectUri,
      response_type: 'code',
      scope: 'openid email',
      state: f.state,
      nonce: f.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(f.codeVerifier),
      code_challenge_method: 'S256',
    })
    .toString();
}

export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

/**
 * Exchanges the callback's code with the attempt's PKCE verifier and checks the ID token
 * (signature, issuer, audience, time, and the attempt's nonce).
 */
export async function exchangeCode(config: oidc.Configuration, callbackUrl: URL, f: { state: string; nonce: string; codeVerifier: string }): Promise<VerifiedIdentity> {
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { expectedState: f.state, expectedNonce: f.nonce, pkceCodeVerifier: f.codeVerifier, idTokenExpected: true });
  } catch (err) {
    throw exchangeRefusal(err);
  }
  const claims = tokens.claims();
  if (!claims) throw new SsoTokenInvalid('The provider sent no ID token.');
  if (typeof claims.email === 'string') return { subject: claims.sub, email: claims.email, emailVerified: claims.email_verified === true };
  // A provider that follows OpenID Connect Core 5.4 to the letter puts the email scope's claims
  // in the UserInfo answer, not the ID token, when it issues an access token.
  try {
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    return { subject: claims.sub, email: typeof info.email === 'string' ? info.email : null, emailVerified: info.email_verified === true };
  } catch (err) {
    throw new SsoProviderError(`The provider's UserInfo endpoint could not be read: ${describe(err)}.`);
  }
}
