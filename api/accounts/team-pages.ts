/**
 * The members page and its forms, and joining by an invitation link (docs/teams.md). The
 * use-cases are shared/accounts/team.ts; each change is audited there with this request's actor.
 */
import {
  uiGetJoinByTokenContract,
  uiGetMembersContract,
  uiPostJoinByTokenContract,
  uiPostMembersByIdRemoveContract,
  uiPostMembersByIdRoleContract,
  uiPostMembersInvitationsByIdRevokeContract,
  uiPostMembersInvitationsContract,
} from './team-contracts';
import type { Request, Response } from 'express';
import {
  invitationOfToken,
  invitationState,
  pendingInvitations,
} from '../../shared/accounts/invitations';
import { toMember } from '../../shared/accounts/member-types';
import {
  changeRole,
  invite,
  join,
  removeMember,
  revokeInvitation,
  type Acting,
} from '../../shared/accounts/team';
import { totpEnabledAmong, userKey } from '../../shared/accounts/totp-factors';
import { AppError } from '../../shared/errors';
import { auditContext } from '../audit-context';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import { anonymousCsrfCheck, form, type Page } from '../web/page-maker';
import { sendPage, viewerOfSession, type PageHandler } from '../apps/web-pages';
import type { RouteContract } from '../route-contract';
import type { Route } from '../route-table';
import { anonymousCsrf, csrfCheck, currentSession, startSession, userOf } from '../web/sessions';
import { joinGonePage, joinPage, membersPage, type TeamState } from './team-views';
import { accountsCollections } from '../../shared/accounts/collections';

const field = (req: Request, name: string): string => {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
};

async function teamState(deps: ApiDeps, accountId: string) {
  const docs = await accountsCollections(deps.db)
    .members.find({ accountId })
    .sort({ createdAt: 1 })
    .toArray();
  const members = docs.map(toMember);
  const founder = userKey(accountId, null);
  const on = await totpEnabledAmong(deps.db, [
    founder,
    ...members.map((m) => userKey(accountId, m.id)),
  ]);
  return {
    members: members.map((m) => ({ ...m, totp: on.has(userKey(accountId, m.id)) })),
    founderTotp: on.has(founder),
    invitations: await pendingInvitations(deps.db, accountId, deps.now()),
    now: deps.now(),
  };
}

async function sendMembers(
  deps: ApiDeps,
  res: Response,
  status: number,
  extra: Pick<TeamState, 'problem' | 'link'> = {},
): Promise<void> {
  const viewer = await viewerOfSession(deps, res);
  sendPage(
    res,
    status,
    membersPage(viewer, { ...(await teamState(deps, viewer.account.id)), ...extra }),
  );
}

const acting = (req: Request, res: Response): Acting => ({
  role: currentSession(res).user.role,
  ctx: auditContext(req, res),
});

/** Runs a team change; a refusal (4xx) shows the members page with the problem. */
function teamForm(
  deps: ApiDeps,
  change: (req: Request, res: Response, accountId: string) => Promise<string | null>,
): PageHandler {
  return async (req, res) => {
    const accountId = currentSession(res).account.id;
    let link: string | null;
    try {
      link = await change(req, res, accountId);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return sendMembers(deps, res, err.status, { problem: err.message });
    }
    if (link) return sendMembers(deps, res, 201, { link });
    res.redirect(303, '/ui/members');
  };
}

export function teamForms(deps: ApiDeps) {
  const now = () => deps.now();
  return {
    invite: teamForm(deps, async (req, res, accountId) => {
      const input = { email: field(req, 'email'), role: field(req, 'role') };
      const { token } = await invite(deps.db, acting(req, res), accountId, input, now());
      return `${deps.publicUrls.base}/ui/join/${token}`;
    }),
    revoke: teamForm(deps, async (req, res, accountId) => {
      await revokeInvitation(deps.db, acting(req, res), accountId, String(req.params.id), now());
      return null;
    }),
    role: teamForm(deps, async (req, res, accountId) => {
      const input = { role: field(req, 'role') };
      await changeRole(deps.db, acting(req, res), accountId, String(req.params.id), input, now());
      return null;
    }),
    remove: teamForm(deps, async (req, res, accountId) => {
      await removeMember(deps.db, acting(req, res), accountId, String(req.params.id), now());
      return null;
    }),
  };
}

/** The join page of a link: who invites, which role; or why the link no longer works. */
function showJoin(deps: ApiDeps, problem: string | null = null, status = 200): PageHandler {
  return async (req, res) => {
    const invitation = await invitationOfToken(deps.db, String(req.params.token));
    if (!invitation) return sendPage(res, 404, joinGonePage('unknown'));
    const state = invitationState(invitation, deps.now());
    if (state !== 'pending') return sendPage(res, 410, joinGonePage(state));
    const account = await deps.accounts.findById(invitation.accountId);
    if (!account) return sendPage(res, 404, joinGonePage('unknown'));
    const shown = { email: invitation.email, role: invitation.role, account: account.email };
    sendPage(res, status, joinPage(req.path, anonymousCsrf(req, res), shown, problem));
  };
}

/** Joins: throttled like sign-up, then the member is made and signed in. */
function joinForm(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const waitMs = await deps.signups.throttle.attempted(clientAddress(req), deps.now().getTime());
    if (waitMs > 0) {
      res.setHeader('Retry-After', String(Math.ceil(waitMs / 1000)));
      return showJoin(deps, 'Too many attempts from your network; try again later.', 429)(req, res);
    }
    const password = field(req, 'password');
    if (password !== field(req, 'confirm')) {
      return showJoin(deps, 'The passwords differ.', 400)(req, res);
    }
    try {
      const input = { token: String(req.params.token), password, address: clientAddress(req) };
      const member = await join(deps.db, input, deps.now());
      const account = await deps.accounts.findById(member.accountId);
      if (!account) throw new AppError('NOT_FOUND', { message: 'No such account.' });
      await startSession(deps, res, account, userOf(account, member));
      res.redirect(303, '/ui/apps');
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      if (err.code === 'NOT_FOUND' || err.code === 'INVITATION_UNUSABLE') {
        return showJoin(deps)(req, res);
      }
      return showJoin(deps, err.message, err.status)(req, res);
    }
  };
}

/** The members page, its forms, and the join pages, made by web.ts's page maker. */
export function teamPages(deps: ApiDeps, page: Page): Route[] {
  const forms = teamForms(deps);
  const post = (path: string, contract: RouteContract, handler: PageHandler) =>
    page('post', path, 'members', contract, form, csrfCheck, handler);
  return [
    page('get', '/ui/members', 'read', uiGetMembersContract, async (_req, res) =>
      sendMembers(deps, res, 200),
    ),
    post('/ui/members/invitations', uiPostMembersInvitationsContract, forms.invite),
    post(
      '/ui/members/invitations/:id/revoke',
      uiPostMembersInvitationsByIdRevokeContract,
      forms.revoke,
    ),
    post('/ui/members/:id/role', uiPostMembersByIdRoleContract, forms.role),
    post('/ui/members/:id/remove', uiPostMembersByIdRemoveContract, forms.remove),
    page('get', '/ui/join/:token', 'public', uiGetJoinByTokenContract, showJoin(deps)),
    page(
      'post',
      '/ui/join/:token',
      'public',
      uiPostJoinByTokenContract,
      form,
      anonymousCsrfCheck,
      joinForm(deps),
    ),
  ];
}
