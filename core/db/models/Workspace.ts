import { Model } from 'objection';

export class Workspace extends Model {
  static tableName = 'workspaces';

  declare id: string;
  declare account_id: string;
  declare name: string;
  declare slug: string;
  declare type: string;
  declare logo: string | null;
  declare website: string;
  declare timezone: string;
  declare country: string | null;
  declare description: string | null;
  declare language: string;
  declare created_at: number;
  declare updated_at: number;
}
