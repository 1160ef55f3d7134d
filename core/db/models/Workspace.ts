import { Model } from 'objection';
import { Account } from './Account.ts';
import { Membership } from './Membership.ts';
import { User } from './User.ts';

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

  declare account?: Account;
  declare memberships?: Membership[];
  declare members?: User[];

  static relationMappings = () => ({
    account: {
      relation: Model.BelongsToOneRelation,
      modelClass: Account,
      join: { from: 'workspaces.account_id', to: 'accounts.id' },
    },
    memberships: {
      relation: Model.HasManyRelation,
      modelClass: Membership,
      join: { from: 'workspaces.id', to: 'memberships.workspace_id' },
    },
    members: {
      relation: Model.ManyToManyRelation,
      modelClass: User,
      join: {
        from: 'workspaces.id',
        through: { from: 'memberships.workspace_id', to: 'memberships.user_id', extra: ['role'] },
        to: 'users.id',
      },
    },
  });
}
