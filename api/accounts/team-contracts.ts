/**
 * The web administration's team pages (docs/teams.md): members, invitations, joining by link, the
 * second factor. Session pages answer 403 to a role that may not use them. No JSON API: the JSON
 * API stays key-based.
 */
import { html, page, post, seeOther } from '../web/contracts';

const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
const token = [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }];
const teamRefused = {
  '400': html('A bad email or role.'),
  '403': html('The role may not: viewers and developers change nothing; admins not owners.'),
  '404': html('No such member or pending invitation.'),
};

export const uiGetMembersContract = page(
  'Members, their roles and second factor, pending invitations.',
);

export const uiPostMembersInvitationsContract = post(
  'Invite an email with a role (form: email, role, _csrf).',
  {
    '201': html('The members page with the invitation link, shown this once.'),
    '409': html('The email already signs in to apkrelay.'),
    ...teamRefused,
  },
);

export const uiPostMembersInvitationsByIdRevokeContract = post(
  'Revoke a pending invitation (form: _csrf).',
  { '303': seeOther, ...teamRefused },
  id,
);

export const uiPostMembersByIdRoleContract = post(
  "Change a member's role (form: role, _csrf).",
  { '303': seeOther, ...teamRefused },
  id,
);

export const uiPostMembersByIdRemoveContract = post(
  'Remove a member and end their sessions (form: _csrf).',
  { '303': seeOther, ...teamRefused },
  id,
);

export const uiGetJoinByTokenContract = {
  ...page('Join by an invitation link: the account, the role, the password form.', false, token),
  responses: {
    '200': html('The form.'),
    '404': html('No such invitation.'),
    '410': html('The link was used, has expired or was revoked.'),
  },
};

export const uiPostJoinByTokenContract = {
  summary: 'Join (form: password, confirm, _csrf); throttled like sign-up; signs in.',
  tags: ['web'],
  security: [],
  parameters: token,
  responses: {
    '303': html('Joined and signed in: to the apps list.'),
    '400': html('A bad password.'),
    '403': html('Missing or wrong CSRF token.'),
    '404': html('No such invitation.'),
    '410': html('The link was used, has expired or was revoked.'),
    '429': html('Too many attempts from this network.'),
  },
};

export const uiPostAccountTotpContract = post(
  'Set up two-factor authentication: a new key and its QR code (form: _csrf).',
  {
    '201': html('The key, its otpauth:// URI and QR code, and the confirmation form.'),
    '409': html('It is on already.'),
  },
);

export const uiPostAccountTotpConfirmContract = post(
  'Turn two-factor authentication on (form: code, _csrf).',
  {
    '303': seeOther,
    '400': html('Wrong code.'),
  },
);

export const uiPostAccountTotpDisableContract = post(
  'Turn two-factor authentication off (form: code, _csrf).',
  {
    '303': seeOther,
    '400': html('Wrong or already used code.'),
  },
);

export const uiPostLoginTotpContract = post(
  "Log in, second step: the authenticator's code (form: pending, code, _csrf).",
  {
    '303': html('Signed in: to the apps list.'),
    '401': html('Wrong, used or expired code or login.'),
    '429': html('Too many failed attempts.'),
  },
);
