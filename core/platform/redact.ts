// The one redaction of secret material, shared by the stdout logger and the stored request
// log: an API key (`sh_` + base62, see core/access/key-format.ts; `%5F` is an encoded
// underscore), a webhook secret (`whsec_...`) or a digest's unsubscribe token (`shu_...`, the
// credential of spec/digests.tsp Unsubscribe, carried in a URL's query) must never reach a log line or a stored field,
// even when a caller pastes one into a path or a message quotes one. A key hint (`sh_` + 5
// characters) is too short to match and may stay.
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/(?<![0-9A-Za-z])sh(?:_|%5[Ff])[0-9A-Za-z]{8,}/g, 'sh_[REDACTED]'],
  [/(?<![0-9A-Za-z])whsec(?:_|%5[Ff])[A-Za-z0-9+/=_%-]*/g, 'whsec_[REDACTED]'],
  [/(?<![0-9A-Za-z])shu(?:_|%5[Ff])[0-9A-Za-z._%-]+/g, 'shu_[REDACTED]'],
];

/** Replaces anything shaped like an API key, a webhook secret or an unsubscribe token. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
