import { Model } from 'objection';

export class Membership extends Model {
  static tableName = 'memberships';
  // One row per (workspace, user); no surrogate key.
  static idColumn = ['workspace_id', 'user_id'];

  declare workspace_id: string;
  declare user_id: string;
  declare role: string;
  declare created_at: number;
}
