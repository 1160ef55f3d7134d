import type { Client } from 'openapi-fetch';
import { errorFromResponse } from '../errors.js';
import type { paths } from '../generated/types.js';

export type ApiClient = Client<paths>;

/**
 * What openapi-fetch resolves to (its `FetchResponse`): `{data, response}` for a 2xx response,
 * `{error, response}` otherwise. `T` is inferred from the first part only: the union, kept out of
 * inference by `NoInfer`, would add its `data?: never` (`undefined`) to every `T`.
 */
type Result<T> = { data?: T; error?: unknown; response: Response } &
  NoInfer<{ data: T; error?: never } | { data?: never; error: unknown }>;

/** The success body of an openapi-fetch call, or the typed error of its response. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const result = await call;
  if ('error' in result || !result.response.ok) throw errorFromResponse(result.response, result.error);
  return result.data;
}

/** Base of the resource classes: each holds the one openapi-fetch client of its `SiteHealth`. */
export abstract class Resource {
  constructor(protected readonly client: ApiClient) {}
}
