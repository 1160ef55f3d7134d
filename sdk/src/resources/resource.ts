import type { Client } from 'openapi-fetch';
import { errorFromResponse } from '../errors.js';
import type { paths } from '../generated/types.js';

export type ApiClient = Client<paths>;

/** What openapi-fetch resolves to: the parsed body on success, the parsed error otherwise. */
interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The success body of an openapi-fetch call, or the typed error of its response. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromResponse(response, error);
  return data as T;
}

/** Base of the resource classes: each holds the one openapi-fetch client of its `SiteHealth`. */
export abstract class Resource {
  constructor(protected readonly client: ApiClient) {}
}
