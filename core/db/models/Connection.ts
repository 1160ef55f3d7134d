import { Model } from 'objection';
import type { Schemas } from '../../contract/index.ts';

/** A connected repository (spec/connections.tsp). `token`, `webhook_secret` and `signing_token` are sealed (core/secrets). */
export class Connection extends Model {
  static tableName = 'repository_connections';
  static jsonAttributes = ['branches'];

  declare id: string;
  declare workspace_id: string;
  declare provider: Schemas['RepositoryProvider'];
  declare base_url: string;
  declare repository: string;
  declare external_id: string | null;
  declare branches: Record<string, string>;
  declare trigger_kind: Schemas['ConnectionTrigger'];
  declare fail_on: Schemas['Severity'];
  declare token: string;
  declare webhook_secret: string;
  declare signing_token: string | null;
  declare state: Schemas['ConnectionState'];
  declare last_error: string | null;
  declare last_error_at: number | null;
  declare verified_at: number | null;
  declare created_at: number;
  declare updated_at: number;
}

/** One inbound delivery of a connection, recorded once per delivery id. */
export class RepositoryDelivery extends Model {
  static tableName = 'repository_deliveries';

  declare id: string;
  declare connection_id: string;
  declare workspace_id: string;
  declare delivery_key: string;
  declare event: string;
  declare payload: string;
  declare state: 'queued' | 'recorded';
  declare deploy_id: string | null;
  declare created_at: number;
}
