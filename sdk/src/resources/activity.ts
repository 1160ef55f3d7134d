import type { ActivityList, ActivityListQuery, ActivityRow } from '../types.js';
import { Resource, everyRow, unwrap, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/activity`: the activity feed (webhook, billing and security events). */
export class Activity extends Resource {
  /** `Activity_list`: one page, newest first; `meta.next_cursor` is null on the last page. */
  list(query: ActivityListQuery = {}, options?: RequestOptions): Promise<WithResponse<ActivityList>> {
    return unwrap(this.client.GET('/v1/activity', { params: { query }, ...this.call(options) }));
  }

  /**
   * Every row matching `query`, newest first, following `meta.next_cursor` page after page.
   *
   * ```ts
   * for await (const row of client.activity.iterate({ workspace_id, kind: 'security' })) console.log(row.action);
   * ```
   */
  iterate(query: ActivityListQuery = {}, options?: RequestOptions): AsyncGenerator<ActivityRow, void, undefined> {
    return everyRow((q: ActivityListQuery) => this.list(q, options), query);
  }
}
