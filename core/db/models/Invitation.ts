import { Model } from 'objection';

export class Invitation extends Model {
  static tableName = 'invitations';

  declare id: string;
  declare workspace_id: string;
  /** Lower case. */
  declare email: string;
  declare role: string;
  /** SHA-256 hex of the token; the token itself is only in the email. */
  declare token_hash: string;
  declare invited_by: string;
  declare created_at: number;
  declare expires_at: number;
  declare accepted_at: number | null;
  declare accepted_user_id: string | null;
  declare withdrawn_at: number | null;
}
