import { Model } from 'objection';
import type { Schemas } from '../../contract/index.ts';
import type { SiteFacts } from '../../findings/index.ts';

export type RunState = Schemas['RunState'];

/** A finding as stored: rows written before `explanation` existed have none (read as null). */
export type Stored<F extends { explanation: string | null }> = Omit<F, 'explanation'> & { explanation?: string | null };

export class SiteCheck extends Model {
  static tableName = 'site_checks';
  static jsonAttributes = ['pages', 'findings', 'site'];

  declare id: string;
  declare workspace_id: string;
  declare deploy_id: string | null;
  declare state: RunState;
  declare trigger_kind: Schemas['CheckTrigger'];
  declare scheduled_at: number;
  declare started_at: number | null;
  declare finished_at: number | null;
  /** Page records (docs/api.md#page-records). */
  declare pages: Schemas['PageRecord'][];
  /** What the check found when it finished: findings against its baseline and issues on its own. */
  declare findings: { findings?: Stored<Schemas['DeployFinding']>[]; issues?: Schemas['SiteCheckIssue'][] } | null;
  declare error: string | null;
  /** What the check saw of the site as a whole (core/findings/site-kinds.ts), or null (older checks, failed ones). */
  declare site: SiteFacts | null;
  declare created_at: number;
}
