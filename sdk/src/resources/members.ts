import type { Invitation, InvitationAccept, InvitationAccepted, InvitationCreate, InvitationList, Member, MemberList, Role } from '../types.js';
import { Resource, unwrap, unwrapDeleted, type Deleted, type RequestOptions, type WithResponse } from './resource.js';

/**
 * `/v1/workspaces/{id}/members`: every member may list them; admin or owner change roles and
 * remove members (owner for anything about the owner role). The last owner stays: a
 * `ConflictError` with code `last_owner`.
 */
export class Members extends Resource {
  /** `Members_list`: oldest first. */
  list(workspaceId: string, options?: RequestOptions): Promise<WithResponse<MemberList>> {
    return unwrap(this.client.GET('/v1/workspaces/{id}/members', { params: { path: { id: workspaceId } }, ...this.call(options) }));
  }

  /** `Members_update`: a new role, in effect on the member's next request. Not retried. */
  update(workspaceId: string, userId: string, role: Role, options?: RequestOptions): Promise<WithResponse<Member>> {
    return unwrap(this.client.PUT('/v1/workspaces/{id}/members/{userId}', { params: { path: { id: workspaceId, userId } }, body: { role }, ...this.call(options) }));
  }

  /** `Members_delete`: removes the member and revokes their keys bound to the workspace. Not retried. */
  delete(workspaceId: string, userId: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/workspaces/{id}/members/{userId}', { params: { path: { id: workspaceId, userId } }, ...this.call(options) }), userId);
  }
}

/** `/v1/workspaces/{id}/invitations`: admin or owner (owner to invite an owner). */
export class Invitations extends Resource {
  /** `Invitations_list`: pending invitations, oldest first; never a token. */
  list(workspaceId: string, options?: RequestOptions): Promise<WithResponse<InvitationList>> {
    return unwrap(this.client.GET('/v1/workspaces/{id}/invitations', { params: { path: { id: workspaceId } }, ...this.call(options) }));
  }

  /**
   * `Invitations_create`: mails a single-use token that expires in 7 days (a pending invitation to
   * the same email is replaced). Not retried by default: a retry would mail a second token.
   */
  create(workspaceId: string, body: InvitationCreate, options?: RequestOptions): Promise<WithResponse<Invitation>> {
    return unwrap(this.client.POST('/v1/workspaces/{id}/invitations', { params: { path: { id: workspaceId } }, body, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `Invitations_delete`: withdraws it; its token stops working. */
  delete(workspaceId: string, invitationId: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/workspaces/{id}/invitations/{invitationId}', { params: { path: { id: workspaceId, invitationId } }, ...this.call(options) }), invitationId);
  }
}

/** `POST /v1/invitations/accept`: the invitation's token is the credential (the client's key is not needed). */
export class InvitationAcceptance extends Resource {
  /**
   * `InvitationAcceptance_accept`: joins the invitee (created if new) to the workspace; with
   * `{ token, password }`, also sets the first password of a user who has none. Not retried by default.
   */
  accept(token: string | InvitationAccept, options?: RequestOptions): Promise<WithResponse<InvitationAccepted>> {
    const body = typeof token === 'string' ? { token } : token;
    return unwrap(this.client.POST('/v1/invitations/accept', { body, ...this.call({ maxRetries: 0, ...options }) }));
  }
}
