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
/** A page of any list: every list pages the same way (`meta.next_cursor`, passed back as `cursor`). */
export interface Page<Row> {
  data: Row[];
  meta: { next_cursor: string | null };
}

/** Every row of a list, page after page, following `meta.next_cursor` (`query.limit` is the page size). */
export async function* everyRow<Q extends { cursor?: string }, Row>(list: (query: Q) => Promise<Page<Row>>, query: Q): AsyncGenerator<Row, void, undefined> {
  let params: Q = { ...query };
  for (;;) {
    const page = await list(params);
    yield* page.data;
    const cursor = page.meta.next_cursor;
    if (!cursor || page.data.length === 0) return;
    params = { ...params, cursor };
  }
}

export abstract class Resource {
  constructor(protected readonly client: ApiClient) {}
}
