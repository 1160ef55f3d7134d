export { Account } from './Account.ts';
export { User } from './User.ts';
export { Workspace } from './Workspace.ts';
export { Membership } from './Membership.ts';
export { ApiKey } from './ApiKey.ts';
export { Activity } from './Activity.ts';
