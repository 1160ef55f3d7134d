import { ValidationFailed, type FieldError } from '../platform/index.ts';
import { checkPublicUrl } from '../net/index.ts';

/** Custom headers per webhook. */
export const MAX_HEADERS = 10;
const HEADER_NAME = /^[A-Za-z0-9-]+$/;
/** Set by us on every delivery: a custom header may not replace them, in any letter case. */
const RESERVED = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-body-signature', 'content-type', 'content-length', 'host']);
// A value is sent as an HTTP header: no control characters (they would split the header).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

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
    if (!HEADER_NAME.test(name)) errors.push({ in: 'body', path: pointer(name), message: 'name must use letters, digits and hyphens only' });
    else if (RESERVED.has(lower)) errors.push({ in: 'body', path: pointer(name), message: 'cannot be set: the signing headers, Content-Type, Content-Length and Host are set by sitehealth' });
    else if (seen.has(lower)) errors.push({ in: 'body', path: pointer(name), message: 'is given twice (header names are case-insensitive)' });
    seen.add(lower);
    if (value === null) {
      const kept = stored.find(([n]) => n.toLowerCase() === lower);
      if (!kept) errors.push({ in: 'body', path: pointer(name), message: 'is null, which keeps a stored value, but the webhook has no such header' });
      else out.push([name, kept[1]]);
    } else if (CONTROL.test(value)) {
      errors.push({ in: 'body', path: pointer(name), message: 'must not contain control characters' });
    } else {
      out.push([name, value]);
    }
  }
  if (errors.length) throw new ValidationFailed(`Invalid headers: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`, errors);
  return out;
}

/** An https URL on a public host (CONTRACT section 4), judged without any DNS lookup. */
export function assertWebhookUrl(url: string, allowPrivateNetwork: boolean): void {
  const verdict = checkPublicUrl(url, { allowPrivateNetwork, httpsOnly: true });
  if (!verdict.ok) {
    const message = `must be an https URL on a public host: ${verdict.reason}`;
    throw new ValidationFailed(`url ${message}.`, [{ in: 'body', path: '/url', message }]);
  }
}
