import type { ActivityList, ActivityListQuery, ActivityRow } from '../types.js';
import { Resource, everyRow, unwrap } from './resource.js';

/** `/v1/activity`: the activity feed (webhook, billing and security events). */
export class Activity extends Resource {
  /** `Activity_list`: one page, newest first; `meta.next_cursor` is null on the last page. */
  list(query: ActivityListQuery = {}): Promise<ActivityList> {
    return unwrap(this.client.GET('/v1/activity', { params: { query } }));
  }

  /**
   * Every row matching `query`, newest first, following `meta.next_cursor` page after page.
   *
   * ```ts
   * for await (const row of client.activity.iterate({ workspace_id, kind: 'security' })) console.log(row.action);
   * ```
   */
  iterate(query: ActivityListQuery = {}): AsyncGenerator<ActivityRow, void, undefined> {
    return everyRow((q: ActivityListQuery) => this.list(q), query);
  }
}
