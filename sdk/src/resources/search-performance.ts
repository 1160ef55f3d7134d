import type { SearchPerformanceQuery, SearchPerformanceResult } from '../types.js';
import { Resource, unwrap, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/search-performance`: clicks, impressions, CTR and position from Search Console. */
export class SearchPerformance extends Resource {
  /**
   * `SearchPerformance_get`: totals over `from`..`to` (at most 487 days), the previous period's
   * with `compare: 'previous'`, and one row per value of `dimension` (`date` oldest first, the
   * others most clicks first), filtered by `page`, `query`, `country` and `device`.
   * `meta.next_cursor` pages through the rows.
   */
  get(query: SearchPerformanceQuery, options?: RequestOptions): Promise<WithResponse<SearchPerformanceResult>> {
    return unwrap(this.client.GET('/v1/search-performance', { params: { query }, ...this.call(options) }));
  }
}
