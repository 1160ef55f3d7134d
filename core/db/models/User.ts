import { Model } from 'objection';
import { Account } from './Account.ts';
import { ApiKey } from './ApiKey.ts';
import { Membership } from './Membership.ts';

export class User extends Model {
  static tableName = 'users';

  declare id: string;
  declare account_id: string;
  declare email: string;
  declare created_at: number;

  declare account?: Account;
  declare memberships?: Membership[];
  declare apiKeys?: ApiKey[];

  static relationMappings = () => ({
    account: {
      relation: Model.BelongsToOneRelation,
      modelClass: Account,
      join: { from: 'users.account_id', to: 'accounts.id' },
    },
    memberships: {
      relation: Model.HasManyRelation,
      modelClass: Membership,
      join: { from: 'users.id', to: 'memberships.user_id' },
    },
    apiKeys: {
      relation: Model.HasManyRelation,
      modelClass: ApiKey,
      join: { from: 'users.id', to: 'api_keys.user_id' },
    },
  });
}
