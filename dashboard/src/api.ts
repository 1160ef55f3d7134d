import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../generated/types.ts';

/** The API's schemas, as generated from spec/: the dashboard has no types of its own for them. */
export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];

let csrfToken: string | null = null;

/**
 * The session's CSRF token (spec/sign-in.tsp): held in memory only, never in storage, and sent
 * on every state-changing request. The session itself is the HttpOnly cookie the page cannot read.
 */
export function useCsrfToken(token: string | null): void {
  csrfToken = token;
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (csrfToken && request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
};

/** The same /v1 operations every client uses, typed from the generated document. */
export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });
api.use(csrf);

/** A problem document (RFC 9457) the API answered with, thrown by `must`. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
    message?: string,
  ) {
    super(message ?? problem?.detail ?? problem?.title ?? `The server answered ${status}.`);
  }

  /** The message of the field at this JSON pointer (`/name`), for showing next to the field. */
  fieldError(pointer: string): string | undefined {
    return this.problem?.errors?.find((e) => e.path === pointer || e.path.startsWith(`${pointer}/`))?.message;
  }
}

/**
 * The data of a successful answer, or an `ApiProblem`. A 401 from an operation that needs a
 * session sends the browser to sign in again.
 */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let res: { data?: T; error?: unknown; response: Response };
  try {
    res = await call;
  } catch {
    throw new ApiProblem(0, null, 'The service could not be reached. Check your connection and try again.');
  }
  if (res.response.ok) return res.data as T;
  if (res.response.status === 401 && onSignedOut) onSignedOut();
  throw new ApiProblem(res.response.status, isProblem(res.error) ? res.error : null);
}

let onSignedOut: (() => void) | null = null;
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

function isProblem(e: unknown): e is Problem {
  return typeof e === 'object' && e !== null && 'status' in e && 'title' in e;
}
