import { Model } from 'objection';
import type { Schemas } from '../../contract/index.ts';

/** A workspace's Search Console connection (spec/search-console.tsp). `refresh_token` is sealed (core/secrets). */
export class SearchConsoleConnection extends Model {
  static tableName = 'search_console_connections';

  declare id: string;
  declare workspace_id: string;
  declare site_url: string;
  declare state: Schemas['SearchConsoleState'];
  declare refresh_token: string | null;
  declare auth_state_hash: string | null;
  declare auth_state_expires_at: number | null;
  declare connected_at: number | null;
  declare last_sync_at: number | null;
  declare synced_through: string | null;
  declare last_sync_rows: number | null;
  declare last_sync_ms: number | null;
  declare last_error: string | null;
  declare last_error_at: number | null;
  declare created_at: number;
  declare updated_at: number;
}
