// Secrets at rest: tokens and other credentials the service must use again later (a connected
// repository's token), sealed with AES-256-GCM under the operator's SECRETS_KEY. Every sealed
// value names the key that sealed it, so several keys can be configured during a rotation
// (docs/operating.md#rotating-secrets_key). Plaintext never leaves the caller that needs it.
// Values only the caller who made them may read again (an idempotent request's answer) are
// sealed under keys derived from that caller's API key instead (CredentialSeal).
export { Keyring, SecretsUnavailable, keyringFor, missingKeyWarning, type SealedSecret } from './keyring.ts';
export { CredentialSeal } from './credential.ts';
