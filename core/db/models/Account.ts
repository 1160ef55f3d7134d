import { Model } from 'objection';

// Models describe rows; they carry no jsonSchema on purpose: the database schema lives in the
// migrations and input shapes in the TypeSpec contract, which validates requests before a
// model ever sees them.
export class Account extends Model {
  static tableName = 'accounts';

  declare id: string;
  declare workspace_limit: number;
  declare created_at: number;
}
