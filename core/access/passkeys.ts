import crypto from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Schemas } from '../contract/index.ts';
import { Passkey, User, WebAuthnChallenge, isUniqueViolation, withTransaction, type Db, type DbOrTrx, type RetentionRule } from '../db/index.ts';
import { DAY_MS } from '../db/index.ts';
import { DomainError, NotFound, isUuid, newId, nowMs, toIso } from '../platform/index.ts';
import { userSecurityEvent, type Actor } from '../activity/index.ts';
import { startSession, type ClientInfo } from './sessions.ts';
import type { Session } from '../db/index.ts';

// Passkeys (spec/passkeys.tsp): WebAuthn registration for the person signed in and passwordless
// sign-in, verified by @simplewebauthn/server. Challenges are stored here, not in a cookie, so
// each is used once: the first answer sent with its id uses it up, accepted or refused.

/** A challenge's lifetime, and the timeout the browser is given. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Sign-in challenges one client address may hold within a challenge's lifetime: each attempt needs one, so this also bounds attempts. */
export const SIGN_IN_CHALLENGES_PER_ADDRESS = 100;
const RP_NAME = 'sitehealth';
// ES256, EdDSA, RS256: what authenticators in use today create.
const ALGORITHMS = [-7, -8, -257];

export class PasskeyChallengeInvalid extends DomainError {
  constructor(detail: string) {
    super(400, 'passkey_challenge_invalid', 'Passkey challenge invalid', detail);
  }
}

export class PasskeyInvalid extends DomainError {
  constructor(detail: string) {
    super(400, 'passkey_invalid', 'Passkey invalid', detail);
  }
}

export class PasskeyRejected extends DomainError {
  constructor(detail: string) {
    super(401, 'passkey_rejected', 'Passkey rejected', detail);
  }
}

export class PasskeyExists extends DomainError {
  constructor() {
    super(409, 'passkey_exists', 'Passkey exists', 'This authenticator is registered already: use the passkey you have, or remove it first.');
  }
}

class PasskeySignInThrottled extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'sign_in_throttled', 'Too many sign-in attempts', `Too many passkey sign-ins from this address; try again in ${retryAfterSeconds} s.`);
  }

  override get retryAfter(): number {
    return this.retryAfterSeconds;
  }
}

/** The relying party of this service: the host of PUBLIC_URL, and its origin as the only one accepted. */
function relyingParty(publicUrl: string): { rpID: string; origin: string } {
  const url = new URL(publicUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/** The WebAuthn user handle: the user's id as 16 bytes, stable across the user's passkeys and free of personal data. */
function userHandle(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

function transportsOf(p: Passkey): string[] {
  const parsed: unknown = JSON.parse(p.transports);
  return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
}

export function passkeyToApi(p: Passkey): Schemas['Passkey'] {
  return {
    id: p.id,
    name: p.name,
    deviceType: p.device_type,
    backedUp: Boolean(p.backed_up),
    transports: transportsOf(p),
    createdAt: toIso(Number(p.created_at))!,
    lastUsedAt: toIso(p.last_used_at === null ? null : Number(p.last_used_at)),
  };
}

/** Challenges are over within minutes; a day keeps them for inspection. */
export const passkeyRetention: RetentionRule[] = [{ name: 'webauthn_challenges', table: 'webauthn_challenges', column: 'created_at', maxAgeMs: DAY_MS }];

async function storeChallenge(db: DbOrTrx, f: { purpose: WebAuthnChallenge['purpose']; userId: string | null; ip: string | null }): Promise<WebAuthnChallenge> {
  const now = nowMs();
  return WebAuthnChallenge.query(db).insert({
    id: newId(),
    purpose: f.purpose,
    user_id: f.userId,
    challenge: crypto.randomBytes(32).toString('base64url'),
    ip: f.ip?.slice(0, 64) ?? null,
    created_at: now,
    expires_at: now + CHALLENGE_TTL_MS,
    used_at: null,
  });
}

/**
 * Uses a challenge up and returns it, or 400 passkey_challenge_invalid saying why. A registration
 * challenge of another user reads as unknown, so ids tell nothing about other users.
 */
async function useChallenge(db: DbOrTrx, f: { challengeId: string; purpose: WebAuthnChallenge['purpose']; userId: string | null }): Promise<string> {
  const row = isUuid(f.challengeId) ? await WebAuthnChallenge.query(db).findById(f.challengeId.toLowerCase()) : undefined;
  if (!row || row.purpose !== f.purpose || (f.purpose === 'registration' && row.user_id !== f.userId)) {
    throw new PasskeyChallengeInvalid('No such challenge: ask for new options.');
  }
  if (row.used_at !== null) throw new PasskeyChallengeInvalid('This challenge was answered already: each works once. Ask for new options.');
  const now = nowMs();
  if (Number(row.expires_at) <= now) throw new PasskeyChallengeInvalid(`This challenge expired at ${toIso(Number(row.expires_at))}: ask for new options.`);
  // Guarded: of two answers racing for one challenge, one gets it.
  if ((await WebAuthnChallenge.query(db).where({ id: row.id }).whereNull('used_at').patch({ used_at: now })) !== 1) {
    throw new PasskeyChallengeInvalid('This challenge was answered already: each works once. Ask for new options.');
  }
  return row.challenge;
}

/**
 * The challenge the answer's clientDataJSON signs must be the one its challengeId names: an answer
 * to another ceremony is refused as such, before any signature is checked.
 */
function assertAnswers(clientDataJSON: string, challenge: string, malformed: (detail: string) => DomainError): void {
  let signed: unknown;
  try {
    signed = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch {
    throw malformed('clientDataJSON is not base64url-encoded JSON.');
  }
  if (typeof signed !== 'string') throw malformed('clientDataJSON carries no challenge.');
  if (signed !== challenge) throw new PasskeyChallengeInvalid('This answer signs another challenge than the one `challengeId` names: answer the options you were given.');
}

/** The library's refusals are plain errors whose messages name the failed check; no secret is in them. */
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

// ---------------------------------------------------------------- registration (session only)

export async function passkeyRegistrationOptions(db: Db, f: { userId: string; publicUrl: string }): Promise<Schemas['PasskeyRegistrationOptions']> {
  const user = await User.query(db).findById(f.userId).select('id', 'email');
  if (!user) throw new NotFound();
  const existing = await Passkey.query(db).where({ user_id: user.id }).select('credential_id', 'transports');
  const { rpID } = relyingParty(f.publicUrl);
  const stored = await storeChallenge(db, { purpose: 'registration', userId: user.id, ip: null });
  const excludeCredentials = existing.map((p) => ({ id: p.credential_id, transports: transportsOf(p) }));
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID,
    userName: user.email,
    userDisplayName: user.email,
    userID: userHandle(user.id),
    challenge: new Uint8Array(Buffer.from(stored.challenge, 'base64url')),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials,
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  return {
    challengeId: stored.id,
    expiresAt: toIso(Number(stored.expires_at))!,
    publicKey: {
      challenge: options.challenge,
      rp: { name: RP_NAME, id: rpID },
      user: { id: options.user.id, name: options.user.name, displayName: options.user.displayName },
      pubKeyCredParams: options.pubKeyCredParams.map((p) => ({ alg: p.alg, type: 'public-key' as const })),
      timeout: CHALLENGE_TTL_MS,
      attestation: 'none',
      excludeCredentials: excludeCredentials.map((c) => ({ id: c.id, type: 'public-key' as const, transports: c.transports })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      extensions: { credProps: true },
    },
  };
}

/** Verifies a registration answer and stores the passkey (passkey.added); refusals store nothing. */
export async function registerPasskey(
  db: Db,
  f: { userId: string; accountId: string; publicUrl: string; actor: Actor; body: Schemas['PasskeyCreate'] },
): Promise<Schemas['Passkey']> {
  const { response } = f.body;
  const challenge = await useChallenge(db, { challengeId: f.body.challengeId, purpose: 'registration', userId: f.userId });
  assertAnswers(response.response.clientDataJSON, challenge, (d) => new PasskeyInvalid(d));
  const { rpID, origin } = relyingParty(f.publicUrl);
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserPresence: true,
      requireUserVerification: true,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (err) {
    throw new PasskeyInvalid(`The registration does not verify: ${reason(err)}`);
  }
  if (!verified.verified) throw new PasskeyInvalid('The registration does not verify.');
  const info = verified.registrationInfo;
  const transports = response.response.transports ?? info.credential.transports ?? [];
  const now = nowMs();
  try {
    return await withTransaction(db, async (trx) => {
      if (await Passkey.query(trx).where({ credential_id: info.credential.id }).select('id').first()) throw new PasskeyExists();
      const row = await Passkey.query(trx).insert({
        id: newId(),
        user_id: f.userId,
        credential_id: info.credential.id,
        public_key: b64url(info.credential.publicKey),
        counter: info.credential.counter,
        transports: JSON.stringify(transports),
        name: f.body.name,
        device_type: info.credentialDeviceType,
        backed_up: info.credentialBackedUp,
        created_at: now,
        last_used_at: null,
      });
      // The passkey's id, name and kind: never its public key or credential id.
      await userSecurityEvent(trx, 'passkey.added', {
        accountId: f.accountId,
        userId: f.userId,
        actor: f.actor,
        at: now,
        details: { passkey_id: row.id, name: row.name, device_type: row.device_type, backed_up: Boolean(row.backed_up), transports },
      });
      return passkeyToApi(row);
    });
  } catch (err) {
    if (isUniqueViolation(err, 'credential_id')) throw new PasskeyExists();
    throw err;
  }
}

export async function listPasskeys(db: DbOrTrx, userId: string): Promise<Schemas['PasskeyList']> {
  const rows = await Passkey.query(db).where({ user_id: userId }).orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]);
  return { data: rows.map(passkeyToApi) };
}

/** Removes one of the user's passkeys (passkey.removed); another user's is 404. */
export async function removePasskey(db: Db, f: { userId: string; accountId: string; passkeyId: string; actor: Actor }): Promise<void> {
  if (!isUuid(f.passkeyId)) throw new NotFound();
  await withTransaction(db, async (trx) => {
    const row = await Passkey.query(trx).findById(f.passkeyId.toLowerCase());
    if (!row || row.user_id !== f.userId) throw new NotFound();
    // Guarded, so two concurrent removals write one audit row.
    if ((await Passkey.query(trx).where({ id: row.id }).delete()) !== 1) throw new NotFound();
    await userSecurityEvent(trx, 'passkey.removed', { accountId: f.accountId, userId: f.userId, actor: f.actor, details: { passkey_id: row.id, name: row.name } });
  });
}

// ---------------------------------------------------------------- sign-in (public)

export async function passkeySignInOptions(db: Db, f: { publicUrl: string; client: ClientInfo }): Promise<Schemas['PasskeySignInOptions']> {
  const now = nowMs();
  const recent = await WebAuthnChallenge.query(db)
    .where({ ip: f.client.ip?.slice(0, 64) ?? null, purpose: 'sign_in' })
    .where('created_at', '>', now - CHALLENGE_TTL_MS)
    .resultSize();
  if (recent >= SIGN_IN_CHALLENGES_PER_ADDRESS) throw new PasskeySignInThrottled(Math.ceil(CHALLENGE_TTL_MS / 1000));
  const { rpID } = relyingParty(f.publicUrl);
  const stored = await storeChallenge(db, { purpose: 'sign_in', userId: null, ip: f.client.ip });
  const options = await generateAuthenticationOptions({
    rpID,
    challenge: new Uint8Array(Buffer.from(stored.challenge, 'base64url')),
    timeout: CHALLENGE_TTL_MS,
    userVerification: 'required',
    allowCredentials: [],
  });
  return {
    challengeId: stored.id,
    expiresAt: toIso(Number(stored.expires_at))!,
    publicKey: { challenge: options.challenge, rpId: rpID, timeout: CHALLENGE_TTL_MS, userVerification: 'required', allowCredentials: [] },
  };
}

/**
 * Verifies a sign-in answer and starts a session (session.signed_in, method passkey): the passkey
 * is both factors. The counter moves in the same transaction as the session starts.
 */
export async function signInWithPasskey(db: Db, f: { publicUrl: string; client: ClientInfo; body: Schemas['PasskeySignInRequest'] }): Promise<{ token: string; session: Session }> {
  const { response } = f.body;
  const challenge = await useChallenge(db, { challengeId: f.body.challengeId, purpose: 'sign_in', userId: null });
  assertAnswers(response.response.clientDataJSON, challenge, (d) => new PasskeyRejected(d));
  if (response.id !== response.rawId) throw new PasskeyRejected('`id` and `rawId` differ.');
  const passkey = await Passkey.query(db).where({ credential_id: response.id }).first();
  if (!passkey) throw new PasskeyRejected('This passkey is not registered here (or was removed).');
  if (response.response.userHandle !== undefined && response.response.userHandle !== b64url(userHandle(passkey.user_id))) {
    throw new PasskeyRejected('The answer names another user than the passkey belongs to.');
  }
  const { rpID, origin } = relyingParty(f.publicUrl);
  let newCounter: number;
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: passkey.credential_id, publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')), counter: Number(passkey.counter), transports: transportsOf(passkey) },
      requireUserVerification: true,
    });
    if (!verified.verified) throw new Error('the signature does not verify');
    newCounter = verified.authenticationInfo.newCounter;
  } catch (err) {
    throw new PasskeyRejected(`The passkey's answer was not accepted: ${reason(err)}`);
  }
  return withTransaction(db, async (trx) => {
    // Guarded by the counter read before: of two answers with the same counter, one signs in.
    const moved = await Passkey.query(trx).where({ id: passkey.id, counter: passkey.counter }).patch({ counter: newCounter, last_used_at: nowMs() });
    if (moved !== 1) throw new PasskeyRejected('This passkey was used at the same time by another sign-in.');
    return startSession(trx, { userId: passkey.user_id, method: 'passkey', client: f.client });
  });
}
