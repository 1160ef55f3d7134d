import { Model } from 'objection';

/** Search-console data of one workspace, date and page (migration 20261123000300). */
export class SearchData extends Model {
  static tableName = 'search_data';
  static idColumn = ['workspace_id', 'date', 'page'];

  declare workspace_id: string;
  /** `YYYY-MM-DD` (UTC calendar day) on both engines. */
  declare date: string;
  /** The page's URL, normalised: the key findings' URLs are matched on. */
  declare page: string;
  /** The URL as the imported file gave it, when normalising changed it; null otherwise. */
  declare page_given: string | null;
  declare clicks: number;
  declare impressions: number;
  declare position: number | null;
  /** Clicks per impression, 0 to 1. */
  declare ctr: number | null;
}

/** One imported day of a workspace: its totals and whether it is provisional. */
export class SearchDataDay extends Model {
  static tableName = 'search_data_days';
  static idColumn = ['workspace_id', 'date'];

  declare workspace_id: string;
  declare date: string;
  declare row_count: number;
  declare clicks: number;
  declare impressions: number;
  declare provisional: boolean;
  declare imported_at: number;
}
