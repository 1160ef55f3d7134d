import crypto from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { DomainError, NotFound } from '../platform/index.ts';

export class MetricsUnauthorized extends DomainError {
  /** For the WWW-Authenticate header a 401 must carry (RFC 9110 section 15.5.2). */
  readonly challenge = 'Bearer realm="metrics"';
  constructor() {
    super(401, 'unauthorized', 'Unauthorized', 'Send the metrics token in the Authorization header as "Bearer <token>".');
  }
}

/** Loopback as the socket reports it: 127.0.0.0/8, ::1, or 127.x carried as ::ffff:127.x. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

export interface MetricsClient {
  /** The socket's peer address (never a forwarded header: those are the client's to invent). */
  remoteAddress: string | undefined;
  authorization: string | undefined;
}

/**
 * Who may read `/metrics`. With a token (METRICS_TOKEN) every client must send
 * `Authorization: Bearer <token>` (401 otherwise, loopback included). Without one only loopback
 * clients may, and anyone else gets the 404 of an unknown path, so a listener reachable from
 * outside does not even show that the endpoint exists. Behind a reverse proxy on the same host
 * every client looks like loopback: set a token there. Throws the refusal as a DomainError.
 */
export function metricsGate(token: string | null): (client: MetricsClient) => void {
  // Digests of equal length keep the comparison constant-time whatever was sent.
  const expected = token ? digest(token) : null;
  return ({ remoteAddress, authorization }) => {
    if (!expected) {
      if (!isLoopback(remoteAddress)) throw new NotFound();
      return;
    }
    const sent = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
    if (!sent || !crypto.timingSafeEqual(digest(sent), expected)) throw new MetricsUnauthorized();
  };
}
