// Secrets at rest: tokens and other credentials the service must use again later (a connected
// repository's token), sealed with AES-256-GCM under the operator's SECRETS_KEY. Every sealed
// value names the key that sealed it, so several keys can be configured during a rotation
// (docs/operating.md#rotating-secrets_key). Plaintext never leaves the caller that needs it.
export { Keyring, SecretsUnavailable, type SealedSecret } from './keyring.ts';
