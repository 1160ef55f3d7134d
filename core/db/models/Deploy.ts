import { Model } from 'objection';
import type { components } from '../../../generated/types.ts';

export type StoredChange = components['schemas']['Change'] & { signals: components['schemas']['Signal'][] };

export class Deploy extends Model {
  static tableName = 'deploys';
  static jsonAttributes = ['changes'];

  declare id: string;
  declare workspace_id: string;
  /** Lower case: the upsert key compares shas case-insensitively. */
  declare commit_sha: string;
  declare environment: string;
  declare ref: string | null;
  declare message: string | null;
  declare source: components['schemas']['DeploySource'];
  declare deployed_at: number;
  declare changes: StoredChange[];
  declare created_at: number;
  declare updated_at: number;
  declare ci_provider: string | null;
  declare ci_run_url: string | null;
  /** The connected repository that recorded it, or null (CI, or the connection was removed). */
  declare connection_id: string | null;
  declare changes_truncated: boolean;
  declare changes_note: string | null;
}
