/**
 * The second factor's forms (docs/teams.md). On the account page (any signed-in user, for
 * themselves): set up (a new seed, shown with its QR code), confirm with a current code (then it
 * is on), turn off with a current code. At login: after a right password, a user with the factor
 * on gets a pending-login token (5 minutes, not a session; MongoDB keeps its SHA-256) and the code
 * form; a wrong code counts against the login throttle, against the user whatever the address,
 * and against the pending login, which its 5th wrong code burns (totp-throttle.ts); a code
 * already used is refused.
 */
import {
  uiPostAccountTotpConfirmContract,
  uiPostAccountTotpContract,
  uiPostAccountTotpDisableContract,
  uiPostLoginTotpContract,
} from './team-contracts';
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import QRCode from 'qrcode';
import { totpUri } from '../../shared/accounts/totp';
import {
  pendingSeed,
  startTotp,
  switchTotp,
  useRecoveryCode,
  useTotpCode,
  userKey,
} from '../../shared/accounts/totp-factors';
import {
  hashRecoveryCode,
  newRecoveryCodes,
  recoveryCodeOf,
} from '../../shared/accounts/recovery-codes';
import { memberActor } from '../../shared/accounts/team';
import { recordAudit } from '../../shared/audit/record';
import type { Account } from '../../shared/accounts/types';
import { audit, selfChange } from '../audit-context';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import type { Route } from '../route-table';
import { throttledMessage } from './web-pages';
import { sendAccountPage } from './key-forms';
import { anonymousCsrfCheck, form, type Page } from '../web/page-maker';
import { sendPage, viewerOfSession, type PageHandler } from '../apps/web-pages';
import {
  anonymousCsrf,
  csrfCheck,
  currentSession,
  startSession,
  type WebUser,
} from '../web/sessions';
import { recheckPassword } from '../web/password-check';
import { totpEnrolPage, totpLoginPage, totpRecoveryPage } from './totp-views';
import { type PendingLoginDoc, accountsCollections } from '../../shared/accounts/collections';

const PENDING_MS = 5 * 60 * 1000;

const pending = (deps: ApiDeps) => accountsCollections(deps.db).pendingLogins;
const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const field = (req: Request, name: string): string => {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
};

/** The password was right and the user has the factor on: the code form, with a pending token. */
export async function askTotpCode(
  deps: ApiDeps,
  req: Request,
  res: Response,
  found: { readonly account: Account; readonly user: WebUser },
): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.now();
  await pending(deps).deleteMany({ expiresAt: { $lte: now } });
  await pending(deps).insertOne({
    _id: hash(token),
    accountId: found.account.id,
    user: found.user,
    expiresAt: new Date(now.getTime() + PENDING_MS),
  });
  sendPage(res, 200, totpLoginPage(anonymousCsrf(req, res), token, null));
}

const EXPIRED = 'This login has expired; log in again.';

/**
 * Whether the form's code is right: a current authenticator code, or one of the user's recovery
 * codes (used up here, and audited as `member.totp-recovery-used`).
 */
async function codeAccepted(
  deps: ApiDeps,
  req: Request,
  at: { account: Account; user: string; pending: PendingLoginDoc; nowMs: number },
): Promise<boolean> {
  const typed = field(req, 'code');
  const recovery = recoveryCodeOf(typed);
  if (!recovery) {
    const state = { enabled: true, nowMs: at.nowMs };
    return useTotpCode(deps.db, deps.keys, at.user, typed, state);
  }
  if (!(await useRecoveryCode(deps.db, at.user, hashRecoveryCode(recovery)))) return false;
  const { memberId, email } = at.pending.user;
  const actor = memberId
    ? memberActor({ id: memberId, email })
    : { kind: 'session', id: at.account.id, name: email };
  const change = {
    accountId: at.account.id,
    action: 'member.totp-recovery-used' as const,
    resource: { kind: 'member', id: memberId ?? at.account.id },
    details: { email },
  };
  await recordAudit(deps.db, { actor, address: clientAddress(req) }, change, deps.now());
  return true;
}

/** The pending login of a form's token, when it is still live. */
async function pendingOf(deps: ApiDeps, token: string) {
  const doc = /^[A-Za-z0-9_-]{43}$/.test(token)
    ? await pending(deps).findOne({ _id: hash(token), expiresAt: { $gt: deps.now() } })
    : null;
  const account = doc ? await deps.accounts.findById(doc.accountId) : null;
  return doc && account ? { doc, account } : null;
}

/**
 * The login's second step: the code of a pending login. Throttled per (email, address) like the
 * password, per user whatever the address, and per pending login: its 5th wrong code burns it.
 */
export function logInWithCode(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const token = field(req, 'pending');
    const csrf = anonymousCsrf(req, res);
    const found = await pendingOf(deps, token);
    if (!found) return sendPage(res, 401, totpLoginPage(csrf, '', EXPIRED));
    const { doc, account } = found;
    const nowMs = deps.now().getTime();
    const attempt = await deps.loginThrottle.attempt(doc.user.email, clientAddress(req), nowMs);
    const user = userKey(account.id, doc.user.memberId);
    const codes = await deps.totpThrottle.attempt(user, doc._id, nowMs);
    if (codes.exhausted) {
      await pending(deps).deleteOne({ _id: doc._id });
      return sendPage(res, 401, totpLoginPage(csrf, '', EXPIRED));
    }
    const waitMs = Math.max(attempt.waitMs, codes.waitMs);
    if (waitMs > 0) {
      return sendPage(res, 429, totpLoginPage(csrf, token, throttledMessage(res, waitMs)));
    }
    if (!(await codeAccepted(deps, req, { account, user, pending: doc, nowMs }))) {
      if (!codes.lastForPending) {
        return sendPage(res, 401, totpLoginPage(csrf, token, 'Wrong or already used code.'));
      }
      await pending(deps).deleteOne({ _id: doc._id });
      return sendPage(res, 401, totpLoginPage(csrf, '', 'Too many wrong codes; log in again.'));
    }
    await Promise.all([attempt.succeeded(), codes.succeeded()]);
    // Taken in one delete: a login ended meanwhile (sign out everywhere) is not finished here.
    const taken = await pending(deps).deleteOne({ _id: doc._id });
    if (taken.deletedCount !== 1) return sendPage(res, 401, totpLoginPage(csrf, '', EXPIRED));
    await startSession(deps, res, account, doc.user);
    res.redirect(303, '/ui/apps');
  };
}

const sessionUser = (res: Response) => {
  const { account, user } = currentSession(res);
  return { account, user, key: userKey(account.id, user.memberId) };
};

async function sendEnrolPage(deps: ApiDeps, res: Response, status: number, problem: string | null) {
  const { user, key } = sessionUser(res);
  const seed = await pendingSeed(deps.db, deps.keys, key);
  if (!seed)
    return sendAccountPage(deps, res, 409, { problem: 'Set up two-factor authentication first.' });
  const uri = totpUri(seed, user.email);
  const qr = await QRCode.toDataURL(uri, { margin: 2, width: 200 });
  sendPage(
    res,
    status,
    totpEnrolPage(await viewerOfSession(deps, res), { base32: seed, uri, qr }, problem),
  );
}

function totpAudit(deps: ApiDeps, req: Request, res: Response, on: boolean) {
  return audit(
    deps,
    req,
    res,
    selfChange(res, on ? 'member.totp-enabled' : 'member.totp-disabled'),
  );
}

/**
 * Turns the pending factor on with a current code, and shows its recovery codes, this once (only
 * their hashes are stored, in the same update); audited.
 */
function confirmForm(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const codes = newRecoveryCodes();
    const request = {
      on: true,
      code: field(req, 'code'),
      nowMs: deps.now().getTime(),
      recoveryHashes: codes.map(hashRecoveryCode),
    };
    if (!(await switchTotp(deps.db, deps.keys, sessionUser(res).key, request))) {
      return sendEnrolPage(deps, res, 400, 'Wrong code: try the one your app shows now.');
    }
    await totpAudit(deps, req, res, true);
    sendPage(res, 200, totpRecoveryPage(await viewerOfSession(deps, res), codes));
  };
}

/** Turns the factor off, with the current password and a current code; audited. */
function disableForm(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const refused = await recheckPassword(deps, req, res);
    if (refused) return sendAccountPage(deps, res, refused.status, { problem: refused.problem });
    const request = { on: false, code: field(req, 'code'), nowMs: deps.now().getTime() };
    if (!(await switchTotp(deps.db, deps.keys, sessionUser(res).key, request))) {
      return sendAccountPage(deps, res, 400, { problem: 'Wrong or already used code: still on.' });
    }
    await totpAudit(deps, req, res, false);
    res.redirect(303, '/ui/account?changed=totp-off');
  };
}

export function totpForms(deps: ApiDeps) {
  return {
    start: (async (req, res) => {
      const refused = await recheckPassword(deps, req, res);
      if (refused) return sendAccountPage(deps, res, refused.status, { problem: refused.problem });
      const { account, key } = sessionUser(res);
      const seed = await startTotp(deps.db, deps.keys, key, account.id, deps.now());
      if (!seed)
        return sendAccountPage(deps, res, 409, {
          problem: 'Two-factor authentication is on already.',
        });
      await sendEnrolPage(deps, res, 201, null);
    }) as PageHandler,
    confirm: confirmForm(deps),
    disable: disableForm(deps),
  };
}

/** The second factor's routes, made by web.ts's page maker. */
export function totpRoutes(deps: ApiDeps, page: Page): Route[] {
  const forms = totpForms(deps);
  return [
    page(
      'post',
      '/ui/account/totp',
      'self',
      uiPostAccountTotpContract,
      form,
      csrfCheck,
      forms.start,
    ),
    page(
      'post',
      '/ui/account/totp/confirm',
      'self',
      uiPostAccountTotpConfirmContract,
      form,
      csrfCheck,
      forms.confirm,
    ),
    page(
      'post',
      '/ui/account/totp/disable',
      'self',
      uiPostAccountTotpDisableContract,
      form,
      csrfCheck,
      forms.disable,
    ),
    page(
      'post',
      '/ui/login/totp',
      'public',
      uiPostLoginTotpContract,
      form,
      anonymousCsrfCheck,
      logInWithCode(deps),
    ),
  ];
}
