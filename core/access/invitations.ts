import crypto from 'node:crypto';
import type { Schemas } from '../contract/index.ts';
import { Invitation, Membership, User, Workspace, isPostgres, withTransaction, type DbOrTrx } from '../db/index.ts';
import { Conflict, Forbidden, NotFound, ServiceUnavailable, isUuid, newId, nowMs, toIso } from '../platform/index.ts';
import { invitationEvent, type Actor } from '../activity/index.ts';
import type { Mailer } from '../mail/index.ts';
import { addMember, removeMember, roleIn } from './memberships.ts';
import { createUser, normalizeEmail } from './users.ts';
import { hashPassword } from './passwords.ts';
import { storePassword } from './sign-in.ts';
import { ROLES, type Role } from './roles.ts';

// Members and invitations over the API (spec/members.tsp). The caller's role comes from the HTTP
// layer's workspace guard (admin or above for every change); owner-only rules are checked here.

/** An invitation's token lives this long (spec/members.tsp). */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
const TOKEN_PREFIX = 'shinv_';

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

function requireOwnerFor(callerRole: Role, what: string): void {
  if (callerRole !== 'owner') throw new Forbidden(`Only an owner of this workspace may ${what}; your role is ${callerRole}.`, 'owner');
}

export async function listMembers(db: DbOrTrx, workspaceId: string): Promise<Schemas['MemberList']> {
  const rows = (await Membership.query(db)
    .join('users as u', 'u.id', 'memberships.user_id')
    .where('memberships.workspace_id', workspaceId)
    .orderBy([{ column: 'memberships.created_at' }, { column: 'memberships.user_id' }])
    .select('memberships.user_id', 'memberships.role', 'memberships.created_at', 'u.email')) as unknown as Array<{ user_id: string; role: Role; created_at: number; email: string }>;
  return { data: rows.map((r) => ({ userId: r.user_id, email: r.email, role: r.role, joinedAt: toIso(Number(r.created_at))! })) };
}

async function memberOrNotFound(db: DbOrTrx, workspaceId: string, userId: string): Promise<Role> {
  const role = await roleIn(db, userId, workspaceId);
  if (!role) throw new NotFound();
  return role;
}

/** PUT members/{userId}: owner rules here; the last owner stays (409 last_owner, in addMember). */
export async function changeMemberRole(db: DbOrTrx, f: { workspaceId: string; userId: string; role: Role; callerRole: Role; actor: Actor }): Promise<Schemas['Member']> {
  const current = await memberOrNotFound(db, f.workspaceId, f.userId);
  if (current === 'owner' || f.role === 'owner') requireOwnerFor(f.callerRole, current === 'owner' ? "change an owner's role" : 'grant the owner role');
  await addMember(db, { workspaceId: f.workspaceId, userId: f.userId, role: f.role, actor: f.actor });
  const member = (await listMembers(db, f.workspaceId)).data.find((m) => m.userId === f.userId);
  if (!member) throw new NotFound(); // removed meanwhile
  return member;
}

/** DELETE members/{userId}: the user's keys bound to the workspace are revoked (removeMember). */
export async function removeMemberAs(db: DbOrTrx, f: { workspaceId: string; userId: string; callerRole: Role; actor: Actor }): Promise<void> {
  const current = await memberOrNotFound(db, f.workspaceId, f.userId);
  if (current === 'owner') requireOwnerFor(f.callerRole, 'remove an owner');
  await removeMember(db, { workspaceId: f.workspaceId, userId: f.userId, actor: f.actor });
}

function invitationToApi(i: Invitation): Schemas['Invitation'] {
  return {
    id: i.id,
    workspaceId: i.workspace_id,
    email: i.email,
    role: i.role as Role,
    invitedBy: i.invited_by,
    createdAt: toIso(Number(i.created_at))!,
    expiresAt: toIso(Number(i.expires_at))!,
  };
}

const pending = (db: DbOrTrx, workspaceId: string, now: number) =>
  Invitation.query(db).where({ workspace_id: workspaceId }).whereNull('accepted_at').whereNull('withdrawn_at').where('expires_at', '>', now);

export async function listInvitations(db: DbOrTrx, workspaceId: string): Promise<Schemas['InvitationList']> {
  const rows = await pending(db, workspaceId, nowMs()).orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return { data: rows.map(invitationToApi) };
}

/**
 * Invites an email (invitation.sent) and mails it the token. A pending invitation to the same
 * email is withdrawn first. If the mail cannot be sent, the invitation is withdrawn again and the
 * caller gets 503: nobody holds a token that was never delivered.
 */
export async function inviteMember(
  db: DbOrTrx,
  mail: Mailer,
  f: { workspaceId: string; email: string; role: Role; callerRole: Role; invitedBy: string; actor: Actor; publicUrl: string },
): Promise<Schemas['Invitation']> {
  if (f.role === 'owner') requireOwnerFor(f.callerRole, 'invite an owner');
  const email = normalizeEmail(f.email);
  const token = TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
  const { row, workspaceName } = await withTransaction(db, async (trx) => {
    const wq = Workspace.query(trx).findById(f.workspaceId).select('id', 'name');
    if (isPostgres(trx)) wq.forUpdate();
    const ws = await wq;
    if (!ws) throw new NotFound();
    const existing = await User.query(trx).where({ email }).select('id').first();
    if (existing && (await roleIn(trx, existing.id, f.workspaceId))) throw new Conflict('member_exists', `${email} is already a member of this workspace; change their role instead.`);
    const now = nowMs();
    for (const old of await pending(trx, f.workspaceId, now).where({ email })) {
      await Invitation.query(trx).findById(old.id).patch({ withdrawn_at: now });
      await invitationEvent(trx, 'invitation.withdrawn', { workspaceId: f.workspaceId, invitationId: old.id, email, role: old.role, actor: f.actor, at: now });
    }
    const inserted = await Invitation.query(trx).insert({
      id: newId(),
      workspace_id: f.workspaceId,
      email,
      role: f.role,
      token_hash: hashToken(token),
      invited_by: f.invitedBy,
      created_at: now,
      expires_at: now + INVITATION_TTL_MS,
      accepted_at: null,
      accepted_user_id: null,
      withdrawn_at: null,
    });
    await invitationEvent(trx, 'invitation.sent', { workspaceId: f.workspaceId, invitationId: inserted.id, email, role: f.role, actor: f.actor, at: now });
    return { row: inserted, workspaceName: ws.name };
  });
  try {
    await mail.send(invitationMail({ to: email, token, role: f.role, workspaceName, expiresAt: Number(row.expires_at), publicUrl: f.publicUrl }));
  } catch {
    await Invitation.query(db).findById(row.id).whereNull('accepted_at').patch({ withdrawn_at: nowMs() });
    throw new ServiceUnavailable('The invitation email could not be sent, so the invitation was withdrawn. Retry after the Retry-After delay.', 5);
  }
  return invitationToApi(row);
}

function invitationMail(m: { to: string; token: string; role: Role; workspaceName: string; expiresAt: number; publicUrl: string }) {
  const link = `${m.publicUrl}/invitations/accept#token=${m.token}`;
  const call = `curl -X POST ${m.publicUrl}/v1/invitations/accept -H 'content-type: application/json' -d '{"token":"${m.token}"}'`;
  return {
    to: m.to,
    subject: `You are invited to ${m.workspaceName} on sitehealth`,
    text: [
      `You are invited to join the workspace "${m.workspaceName}" on sitehealth as ${m.role}.`,
      '',
      `Accept: ${link}`,
      '',
      `Or with the API: ${call}`,
      '',
      `The invitation works once and expires at ${toIso(m.expiresAt)}. If you did not expect it, ignore this email.`,
      '',
    ].join('\n'),
  };
}

/** Withdraws a pending invitation (invitation.withdrawn); anything else is 404. */
export async function withdrawInvitation(db: DbOrTrx, f: { workspaceId: string; invitationId: string; actor: Actor }): Promise<void> {
  if (!isUuid(f.invitationId)) throw new NotFound();
  await withTransaction(db, async (trx) => {
    const now = nowMs();
    const inv = await pending(trx, f.workspaceId, now).findById(f.invitationId.toLowerCase());
    if (!inv) throw new NotFound();
    await Invitation.query(trx).findById(inv.id).patch({ withdrawn_at: now });
    await invitationEvent(trx, 'invitation.withdrawn', { workspaceId: f.workspaceId, invitationId: inv.id, email: inv.email, role: inv.role, actor: f.actor, at: now });
  });
}

/**
 * Accepts an invitation by its token (invitation.accepted, then member.joined): the user with its
 * email, or a new user in the workspace's account, joins with its role. A user who is a member
 * already keeps the role they have. Used, expired, withdrawn or unknown tokens change nothing.
 */
export async function acceptInvitation(db: DbOrTrx, token: string, password?: string): Promise<Schemas['InvitationAccepted']> {
  // The hash runs before the transaction (no lock held meanwhile), and only for a token that exists.
  let digest: string | null = null;
  if (password !== undefined && (await Invitation.query(db).where({ token_hash: hashToken(token) }).select('id').first())) digest = await hashPassword(password);
  return withTransaction(db, async (trx) => {
    const q = Invitation.query(trx).where({ token_hash: hashToken(token) }).first();
    if (isPostgres(trx)) q.forUpdate();
    const inv = await q;
    if (!inv || inv.withdrawn_at !== null) throw new NotFound('No pending invitation has this token.');
    if (inv.accepted_at !== null) throw new Conflict('invitation_used', 'This invitation was accepted already: its token works once.');
    const now = nowMs();
    if (Number(inv.expires_at) <= now) throw new Conflict('invitation_expired', `This invitation expired at ${toIso(Number(inv.expires_at))}.`);
    const ws = await Workspace.query(trx).findById(inv.workspace_id).select('account_id');
    if (!ws) throw new NotFound('No pending invitation has this token.');
    let user = await User.query(trx).where({ email: inv.email }).select('id', 'password_hash', 'email_verified_at').first();
    let userCreated = false;
    if (!user) {
      const made = await createUser(trx, inv.email, ws.account_id);
      user = { id: made.userId, password_hash: null, email_verified_at: null } as User;
      userCreated = true;
    }
    if (digest !== null && user.password_hash !== null) throw new Conflict('password_exists', `${inv.email} has a password already: accept without one, and sign in with it (or reset it by email).`);
    const actor: Actor = { type: 'user', id: user.id, label: inv.email };
    const n = await Invitation.query(trx).findById(inv.id).whereNull('accepted_at').whereNull('withdrawn_at').patch({ accepted_at: now, accepted_user_id: user.id });
    if (n !== 1) throw new Conflict('invitation_used', 'This invitation was accepted already: its token works once.');
    // The token arrived by email to this address: accepting it proves the address.
    if (user.email_verified_at === null) await User.query(trx).findById(user.id).patch({ email_verified_at: now });
    await invitationEvent(trx, 'invitation.accepted', { workspaceId: inv.workspace_id, accountId: ws.account_id, invitationId: inv.id, email: inv.email, role: inv.role, userId: user.id, actor, at: now });
    if (digest !== null) await storePassword(trx, { userId: user.id, digest, action: 'password.changed', actor, keepSession: null });
    const current = await roleIn(trx, user.id, inv.workspace_id);
    const role = current ?? (ROLES.includes(inv.role as Role) ? (inv.role as Role) : 'viewer');
    if (!current) await addMember(trx, { workspaceId: inv.workspace_id, userId: user.id, role, actor });
    return { workspaceId: inv.workspace_id, userId: user.id, email: inv.email, role, userCreated, passwordSet: digest !== null };
  });
}
