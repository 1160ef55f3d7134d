import http from 'node:http';
import https from 'node:https';

/** Request options plus the checked addresses the connection is pinned to. */
export interface PinnedRequestOptions extends https.RequestOptions {
  pin: string;
}

/**
 * Keep-alive pools are keyed by Agent#getName(): host, port (and TLS options). A pooled
 * socket is handed to any request with the same name, with no lookup and no check. Keyed by
 * host alone, a socket dialled for one request could serve another whose own check never
 * approved that address: a host that now resolves elsewhere, or a caller without
 * allowPrivateNetwork reusing a socket to 10.x opened for a caller with it. Appending the
 * checked address set to the name makes reuse mean "same host, port, TLS options and the same
 * addresses this request has just approved", so one shared pool per scheme stays safe.
 */
function pinnedName(base: string, options: unknown): string {
  return `${base}|${(options as PinnedRequestOptions).pin}`;
}

class PinnedHttpAgent extends http.Agent {
  override getName(options?: http.ClientRequestArgs): string {
    return pinnedName(super.getName(options), options);
  }
}

class PinnedHttpsAgent extends https.Agent {
  override getName(options?: https.RequestOptions): string {
    return pinnedName(super.getName(options), options);
  }
}

// Idle sockets close after this; Node shortens it when a server's Keep-Alive hint asks.
const IDLE_MS = 10_000;

export const httpAgent = new PinnedHttpAgent({ keepAlive: true, timeout: IDLE_MS });
export const httpsAgent = new PinnedHttpsAgent({ keepAlive: true, timeout: IDLE_MS });

/** Closes pooled idle sockets (shutdown, tests). Requests in flight are not touched. */
export function closeIdleConnections(): void {
  for (const agent of [httpAgent, httpsAgent]) {
    for (const sockets of Object.values(agent.freeSockets)) {
      for (const socket of sockets ?? []) socket.destroy();
    }
  }
}
