import type { OutgoingHttpHeaders } from 'node:http';

export function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/**
 * The method of the next hop, as browsers do it: 303 turns anything but HEAD into GET,
 * 301/302 turn POST into GET (RFC 9110 15.4 allows it and every client does it), 307/308
 * keep method and body.
 */
export function methodAfter(status: number, method: string): string {
  if (status === 303) return method === 'HEAD' ? 'HEAD' : 'GET';
  if ((status === 301 || status === 302) && method === 'POST') return 'GET';
  return method;
}

/** Headers for a hop that no longer carries the body. */
export function withoutBodyHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const next = { ...headers };
  delete next['content-type'];
  delete next['content-length'];
  return next;
}

/** Credentials the caller meant for one origin must not follow a redirect to another. */
export function withoutCredentials(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const next = { ...headers };
  delete next.authorization;
  delete next.cookie;
  delete next['proxy-authorization'];
  return next;
}
