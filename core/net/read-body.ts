import type { IncomingMessage } from 'node:http';
import { FetchError } from './fetch-error.ts';
import type { FetchLifecycle } from './fetch-lifecycle.ts';

export interface BodyLimits {
  maxBytes: number;
  /** Keep the first maxBytes and say so, instead of failing. */
  truncate: boolean;
}

export interface ReadBody {
  body: Buffer;
  truncated: boolean;
}

function tooLarge(host: string, maxBytes: number): FetchError {
  return new FetchError('body_too_large', `the response from ${host} is larger than ${maxBytes} bytes`);
}

/**
 * Reads at most maxBytes: past the cap the response (and its socket, which still has unread
 * bytes and cannot go back to the pool) is destroyed, so a 50 MiB answer costs maxBytes of
 * memory and the server is stopped by TCP back-pressure.
 */
export function readBody(res: IncomingMessage, limits: BodyLimits, life: FetchLifecycle, host: string): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const { maxBytes, truncate } = limits;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;

    const finish = (err: FetchError | null, truncated: boolean): void => {
      if (done) return;
      done = true;
      life.clear();
      res.off('data', onData);
      if (err) {
        res.destroy();
        reject(err);
        return;
      }
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      resolve({ body, truncated });
    };
    const cutShort = (cause?: unknown): FetchError =>
      life.reason ??
      new FetchError('network', `the connection to ${host} closed before the response was complete`, { cause });

    const onData = (chunk: Buffer): void => {
      const room = maxBytes - size;
      if (chunk.length <= room) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      if (!truncate) return finish(tooLarge(host, maxBytes), false);
      if (room > 0) {
        chunks.push(chunk.subarray(0, room));
        size = maxBytes;
      }
      res.destroy();
      finish(null, true);
    };

    // A declared length over the cap fails before a byte is read.
    if (!truncate && Number(res.headers['content-length']) > maxBytes) return finish(tooLarge(host, maxBytes), false);

    res.on('data', onData);
    res.on('end', () => finish(null, false));
    res.on('error', (err) => finish(cutShort(err), false));
    res.on('close', () => finish(res.complete ? null : cutShort(), false));
    life.onStop((err) => finish(err, false));
  });
}

/** Lets go of a response whose body nobody wants (a redirect) without reading it. */
export function discardBody(res: IncomingMessage): void {
  res.on('error', () => {});
  // An empty body costs nothing to drain and keeps the socket for the next hop; anything
  // else might be large or endless, so the socket goes instead.
  if (res.headers['content-length'] === '0') res.resume();
  else res.destroy();
}
