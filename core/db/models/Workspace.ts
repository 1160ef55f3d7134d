import { Model } from 'objection';
import type { Schemas } from '../../contract/index.ts';

export class Workspace extends Model {
  static tableName = 'workspaces';

  declare id: string;
  declare account_id: string;
  declare name: string;
  declare slug: string;
  declare type: Schemas['WorkspaceType'];
  declare logo: string | null;
  declare website: string;
  declare timezone: string;
  declare country: string | null;
  declare description: string | null;
  declare language: string;
  declare check_schedule: Schemas['CheckSchedule'];
  declare check_time: string;
  declare crawl_schedule: Schemas['CrawlSchedule'];
  declare render_preset: Schemas['RenderPreset'];
  /** When a schedule setting last changed (slots before it never run), or null. */
  declare schedule_changed_at: number | null;
  declare created_at: number;
  declare updated_at: number;
}
