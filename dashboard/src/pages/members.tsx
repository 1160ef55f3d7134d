import { useState } from 'preact/hooks';
import { api, must, type Schemas } from '../api.ts';
import { choices } from '../choices.ts';
import { ConfirmButton, Field, Loading, PageTitle, ProblemBanner, Select, When, errorText, useAsync, useForm } from '../ui.tsx';
import type { PageProps } from './index.tsx';

/** Roles highest first (spec/common/access.tsp). */
const ROLES = choices({ owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' } satisfies Record<Schemas['Role'], string>);
const ROLE_TEXT = ROLES.labels;
const ROLE_OPTIONS = ROLES.options;
const isRole = ROLES.is;

/**
 * A workspace's members and pending invitations (spec/members.tsp). The controls are there for
 * every role: the API decides, and its 403 says why (admin or owner manage members, only an
 * owner touches the owner role).
 */
export function MembersPage({ workspace, me }: PageProps) {
  const members = useAsync(() => must(api.GET('/v1/workspaces/{id}/members', { params: { path: { id: workspace.id } } })), [workspace.id]);
  const invitations = useAsync(() => must(api.GET('/v1/workspaces/{id}/invitations', { params: { path: { id: workspace.id } } })), [workspace.id]);
  const myRole = members.data?.data.find((m) => m.userId === me.id)?.role;

  return (
    <>
      <PageTitle>Members</PageTitle>
      {myRole && (
        <p class="muted">
          Your role here is <strong>{ROLE_TEXT[myRole]}</strong>.{' '}
          {myRole === 'owner' || myRole === 'admin' ? 'You can invite people, change roles and remove members.' : 'Only admins and owners can invite people, change roles and remove members.'}
        </p>
      )}
      <section aria-labelledby="members-h">
        <h2 id="members-h">Members</h2>
        <ProblemBanner error={members.error} />
        {!members.data ? (
          <Loading what="members" />
        ) : (
          <div class="scroll" tabIndex={0} role="region" aria-label="Members table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Joined</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {members.data.data.map((m) => (
                  <MemberRow key={m.userId} workspaceId={workspace.id} member={m} isMe={m.userId === me.id} onChanged={members.reload} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <InviteForm workspaceId={workspace.id} onInvited={invitations.reload} />
      <section aria-labelledby="invitations-h">
        <h2 id="invitations-h">Pending invitations</h2>
        <ProblemBanner error={invitations.error} />
        {invitations.error ? null : !invitations.data ? (
          <Loading what="invitations" />
        ) : invitations.data.data.length === 0 ? (
          <p>No pending invitations.</p>
        ) : (
          <div class="scroll" tabIndex={0} role="region" aria-label="Invitations table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Sent</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {invitations.data.data.map((i) => (
                  <tr key={i.id}>
                    <th scope="row">{i.email}</th>
                    <td>{ROLE_TEXT[i.role]}</td>
                    <td>
                      <When iso={i.createdAt} />
                    </td>
                    <td>
                      <When iso={i.expiresAt} />
                    </td>
                    <td>
                      <ConfirmButton
                        label="Revoke"
                        title={`Revoke the invitation to ${i.email}?`}
                        body={<p>The link in the email stops working at once.</p>}
                        confirmLabel="Revoke invitation"
                        onConfirm={async () => {
                          await must(api.DELETE('/v1/workspaces/{id}/invitations/{invitationId}', { params: { path: { id: workspace.id, invitationId: i.id } } }));
                          invitations.reload();
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

function MemberRow({ workspaceId, member, isMe, onChanged }: { workspaceId: string; member: Schemas['Member']; isMe: boolean; onChanged: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const path = { id: workspaceId, userId: member.userId };
  return (
    <tr>
      <th scope="row">
        {member.email}
        {isMe && <span class="muted"> (you)</span>}
      </th>
      <td>
        <Select
          label={`Role of ${member.email}`}
          name="role"
          value={member.role}
          disabled={busy}
          options={ROLE_OPTIONS}
          error={error ? errorText(error) : undefined}
          onChange={async (e) => {
            const select = e.currentTarget;
            const role = select.value;
            if (!isRole(role)) return;
            setBusy(true);
            setError(null);
            try {
              await must(api.PUT('/v1/workspaces/{id}/members/{userId}', { params: { path }, body: { role } }));
              onChanged();
            } catch (err) {
              // The API refused: show why, and put the select back to the role the member has.
              select.value = member.role;
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        />
      </td>
      <td>
        <When iso={member.joinedAt} />
      </td>
      <td>
        <ConfirmButton
          label={isMe ? 'Leave workspace' : 'Remove'}
          title={isMe ? 'Leave this workspace?' : `Remove ${member.email}?`}
          body={<p>{isMe ? 'You lose access at once' : 'They lose access at once'}, and API keys bound to this workspace are revoked.</p>}
          confirmLabel={isMe ? 'Leave workspace' : 'Remove member'}
          onConfirm={async () => {
            await must(api.DELETE('/v1/workspaces/{id}/members/{userId}', { params: { path } }));
            onChanged();
          }}
        />
      </td>
    </tr>
  );
}

function InviteForm({ workspaceId, onInvited }: { workspaceId: string; onInvited: () => void }) {
  const f = useForm();
  const [sent, setSent] = useState<string | null>(null);
  // Held in state: a re-render would otherwise put a chosen role back to the default.
  const [role, setRole] = useState<string>('member');
  return (
    <form
      aria-labelledby="invite-h"
      onSubmit={f.submit(async (d) => {
        setSent(null);
        const invitation = await must(
          api.POST('/v1/workspaces/{id}/invitations', { params: { path: { id: workspaceId } }, body: { email: String(d.get('email') ?? '').trim(), role: isRole(role) ? role : 'member' } }),
        );
        setSent(`An invitation is on its way to ${invitation.email}. The link works once, for 7 days.`);
        onInvited();
      })}
    >
      <h2 id="invite-h">Invite someone</h2>
      <Field label="Email" name="email" type="email" required autoComplete="off" error={f.errorFor('/email')} />
      <Select label="Role" name="role" value={role} options={ROLE_OPTIONS} error={f.errorFor('/role')} onChange={(e) => setRole(e.currentTarget.value)} />
      <ProblemBanner error={f.formError(['/email', '/role'])} />
      {sent && <p role="status">{sent}</p>}
      <div>
        <button type="submit" disabled={f.busy}>
          Invite member
        </button>
      </div>
    </form>
  );
}
