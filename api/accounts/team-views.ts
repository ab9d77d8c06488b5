/**
 * The members page (docs/teams.md): the founding owner, the members with their role and second
 * factor, the pending invitations; the forms that invite, change a role, remove, revoke. A new
 * invitation's link is shown once, on the page answering its creation. And the join pages.
 */
import type { InvitationState } from '../../shared/accounts/invitations';
import type { Member } from '../../shared/accounts/member-types';
import { MEMBER_ROLES, type MemberRole } from '../../shared/accounts/principal';
import { html, type Html } from '../web/html';
import { when } from '../web/time';
import { layout, may, postButton, type Viewer } from '../web/views';
import { scrollTable } from '../web/table';
import type { InvitationDoc } from '../../shared/accounts/collections';

export interface TeamState {
  readonly members: readonly (Member & { readonly totp: boolean })[];
  readonly founderTotp: boolean;
  readonly invitations: readonly InvitationDoc[];
  /** The request's time: what the page's relative times count from. */
  readonly now: Date;
  readonly problem?: string | null;
  /** The link of the invitation just made: shown this once. */
  readonly link?: string | null;
}

const hidden = (viewer: Viewer) =>
  html`<input type="hidden" name="_csrf" value="${viewer.csrf}" />`;

/** The roles the viewer may give: owners any, admins all but owner (docs/teams.md). */
function roleSelect(viewer: Viewer, id: string, selected: MemberRole): Html {
  const roles = may(viewer, 'owner') ? MEMBER_ROLES : MEMBER_ROLES.filter((r) => r !== 'owner');
  return html`<select id="${id}" name="role">
    ${roles.map(
      (r) => html`<option value="${r}" ${r === selected ? html`selected` : ''}>${r}</option>`,
    )}
  </select>`;
}

/** Whether the viewer's role may change the team (owners and admins: the `members` scope). */
const manages = (viewer: Viewer) => may(viewer, 'members');

function memberRow(viewer: Viewer, m: TeamState['members'][number], now: Date): Html {
  // Owners are changed by owners only: an admin sees them as a viewer does.
  if (!manages(viewer) || (m.role === 'owner' && !may(viewer, 'owner'))) {
    return html`<tr>
      <td>${m.email}</td>
      <td>${m.role}</td>
      <td>${m.totp ? 'on' : 'off'}</td>
      <td>${when(m.createdAt, now)}</td>
      <td></td>
    </tr>`;
  }
  return html`<tr>
    <td>${m.email}</td>
    <td>
      <form class="inline" method="post" action="/ui/members/${m.id}/role">
        ${hidden(viewer)} ${roleSelect(viewer, `role-${m.id}`, m.role)}
        <button type="submit">Change</button>
      </form>
    </td>
    <td>${m.totp ? 'on' : 'off'}</td>
    <td>${when(m.createdAt, now)}</td>
    <td>${postButton(viewer, `/ui/members/${m.id}/remove`, 'Remove')}</td>
  </tr>`;
}

function invitationRow(viewer: Viewer, i: InvitationDoc, now: Date): Html {
  return html`<tr>
    <td>${i.email}</td>
    <td>${i.role}</td>
    <td>${i.invitedBy}</td>
    <td>${when(i.expiresAt, now)}</td>
    <td>
      ${
        manages(viewer)
          ? postButton(viewer, `/ui/members/invitations/${i._id.toHexString()}/revoke`, 'Revoke')
          : ''
      }
    </td>
  </tr>`;
}

function inviteForm(viewer: Viewer): Html {
  return html`<form class="stack" method="post" action="/ui/members/invitations">
    ${hidden(viewer)}
    <label for="invite-email">Email</label>
    <input id="invite-email" name="email" type="email" required />
    <label for="invite-role">Role</label>
    ${roleSelect(viewer, 'invite-role', 'developer')}
    <button type="submit">Invite</button>
  </form>`;
}

export function membersPage(viewer: Viewer, state: TeamState): string {
  const link = state.link
    ? html`<p class="notice" role="status">
        Invitation link (valid 7 days, once): <code id="invite-link">${state.link}</code>
        <button type="button" data-copy-text="${state.link}">Copy</button> — send it to the invitee
        now, it is not shown again.
      </p>`
    : '';
  return layout(
    'Members',
    viewer,
    html`<h1>Members</h1>
      ${state.problem ? html`<p class="error" role="alert">${state.problem}</p>` : ''} ${link}
      ${scrollTable(
        ['Email', 'Role', 'Second factor', 'Member since', ''],
        [
          html`<tr>
            <td>${viewer.account.email}</td>
            <td>owner (founding: cannot be changed or removed)</td>
            <td>${state.founderTotp ? 'on' : 'off'}</td>
            <td></td>
            <td></td>
          </tr>`,
          ...state.members.map((m) => memberRow(viewer, m, state.now)),
        ],
        { class: 'members' },
      )}
      <h2>Pending invitations</h2>
      ${
        state.invitations.length
          ? scrollTable(
              ['Email', 'Role', 'Invited by', 'Expires', ''],
              state.invitations.map((i) => invitationRow(viewer, i, state.now)),
              { class: 'invitations' },
            )
          : html`<p>None.</p>`
      }
      ${
        manages(viewer)
          ? html`<h2>Invite</h2>
              ${inviteForm(viewer)}`
          : ''
      }`,
  );
}

const GONE: Readonly<Record<Exclude<InvitationState, 'pending'>, string>> = {
  used: 'This invitation link was used already. Log in instead, or ask for a new invitation.',
  expired: 'This invitation link has expired. Ask for a new invitation.',
  revoked: 'This invitation link was revoked. Ask for a new invitation if you still need one.',
};

export function joinGonePage(state: Exclude<InvitationState, 'pending'> | 'unknown'): string {
  const text = state === 'unknown' ? 'This invitation link is not valid.' : GONE[state];
  return layout(
    'Invitation',
    null,
    html`<h1>Invitation</h1>
      <p class="error" role="alert">${text}</p>
      <p><a href="/ui/login">Log in</a></p>`,
  );
}

export function joinPage(
  path: string,
  csrf: string,
  invitation: { readonly email: string; readonly role: MemberRole; readonly account: string },
  problem: string | null,
): string {
  return layout(
    'Join',
    null,
    html`<h1>Join ${invitation.account}’s account</h1>
      <p>
        You are invited as <strong>${invitation.role}</strong> with the email
        <strong>${invitation.email}</strong>. Choose a password to join.
      </p>
      ${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
      <form class="stack" method="post" action="${path}">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="email" autocomplete="username" value="${invitation.email}" />
        <label for="password">Password (8 to 1024 characters)</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          minlength="8"
          required
        />
        <label for="confirm">Password again</label>
        <input
          id="confirm"
          name="confirm"
          type="password"
          autocomplete="new-password"
          minlength="8"
          required
        />
        <button type="submit">Join</button>
      </form>`,
  );
}
