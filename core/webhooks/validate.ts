import { ValidationFailed, type FieldError } from '../platform/index.ts';
import { checkPublicUrl } from '../net/index.ts';

/** Custom headers per webhook. */
export const MAX_HEADERS = 10;
// The rules of `WebhookCreate.headers` in spec/webhooks.tsp; the schema carries the name syntax
// and the value alphabet too, so these repeat them only for callers that skip the HTTP layer.
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
const HEADER_VALUE = /^[ -~]*$/;
/** Set by sitehealth on every delivery. */
const OURS = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-body-signature', 'content-type', 'content-length', 'user-agent']);
/** Hop-by-hop and protocol headers: they would change how the request is framed or routed. */
const PROTOCOL = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect', 'http2-settings']);

function refusal(lower: string): string | null {
  if (OURS.has(lower)) return 'cannot be set: sitehealth sets the signing headers, Content-Type, Content-Length and User-Agent itself';
  if (PROTOCOL.has(lower) || lower.startsWith('proxy-')) return 'cannot be set: hop-by-hop and protocol headers (Host, Connection, Keep-Alive, Transfer-Encoding, TE, Trailer, Upgrade, Expect, HTTP2-Settings, Proxy-*) belong to the connection';
  return null;
}

const pointer = (name: string) => `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * The custom headers of a create or an update as [name, value] pairs, in the order given. For an
 * update, a null value keeps the stored value of that name (matched case-insensitively).
 */
export function headerPairs(input: Record<string, string | null>, stored: ReadonlyArray<[string, string]> = []): Array<[string, string]> {
  const errors: FieldError[] = [];
  const names = Object.keys(input);
  if (names.length > MAX_HEADERS) errors.push({ in: 'body', path: '/headers', message: `must have at most ${MAX_HEADERS} headers` });
  const seen = new Set<string>();
  const out: Array<[string, string]> = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    const value = input[name];
    const refused = refusal(lower);
    if (!HEADER_NAME.test(name)) errors.push({ in: 'body', path: pointer(name), message: 'name must be 1 to 64 letters, digits and hyphens' });
    else if (refused) errors.push({ in: 'body', path: pointer(name), message: refused });
    else if (seen.has(lower)) errors.push({ in: 'body', path: pointer(name), message: 'is given twice (header names are case-insensitive)' });
    seen.add(lower);
    if (value === null) {
      const kept = stored.find(([n]) => n.toLowerCase() === lower);
      if (!kept) errors.push({ in: 'body', path: pointer(name), message: 'is null, which keeps a stored value, but the webhook has no such header' });
      else out.push([name, kept[1]]);
    } else if (!HEADER_VALUE.test(value)) {
      errors.push({ in: 'body', path: pointer(name), message: 'must be visible ASCII characters and spaces only' });
    } else {
      out.push([name, value]);
    }
  }
  if (errors.length) throw new ValidationFailed(`Invalid headers: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`, errors);
  return out;
}

/** An https URL on a public host (docs/api.md#address-guard), judged without any DNS lookup. */
export function assertWebhookUrl(url: string, allowPrivateNetwork: boolean): void {
  const verdict = checkPublicUrl(url, { allowPrivateNetwork, httpsOnly: true });
  if (!verdict.ok) {
    const message = `must be an https URL on a public host: ${verdict.reason}`;
    throw new ValidationFailed(`url ${message}.`, [{ in: 'body', path: '/url', message }]);
  }
}
