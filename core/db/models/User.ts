import { Model } from 'objection';

export class User extends Model {
  static tableName = 'users';

  declare id: string;
  declare account_id: string;
  /** Lower case. */
  declare email: string;
  declare created_at: number;
}
