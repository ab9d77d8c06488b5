/**
 * Web sessions: a random 256-bit id in a `__Host-` cookie (Secure, HttpOnly, SameSite=Lax, Path=/);
 * the server keeps only its SHA-256 in MongoDB with the account, the user (the founding owner, or
 * a team member: `memberId`), the CSRF token of the session's forms and the expiry. Each request
 * builds the session's principal from the member's role as stored now (docs/teams.md): a demoted
 * member loses rights at once, a removed one is signed out. Before sign-in, forms carry a
 * double-submit token whose cookie is also `__Host-`. Login attempts are throttled in Redis
 * (shared/accounts/login-throttle.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ObjectId, type Db } from 'mongodb';
import { type Member } from '../../shared/accounts/member-types';
import { endPendingLogins } from '../../shared/accounts/pending-logins';
import {
  decide,
  principalOf,
  type MemberRole,
  type Principal,
  type Scope,
} from '../../shared/accounts/principal';
import { WEB_SESSIONS_COLLECTION } from '../../shared/accounts/team';
import type { Account } from '../../shared/accounts/types';
import type { ApiDeps } from '../deps';
import { accountsCollections } from '../../shared/accounts/collections';

export const SESSION_COOKIE = '__Host-apkrelay_session';
export const ANON_CSRF_COOKIE = '__Host-apkrelay_csrf';
const SESSION_MS = 12 * 3600 * 1000;

interface SessionDoc {
  _id: string;
  accountId: string;
  /** The member signed in; null (or absent, before teams): the account's founding owner. */
  memberId?: string | null;
  email: string;
  csrf: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Who is signed in: the founding owner (memberId null) or a member, with the role now. */
export interface WebUser {
  readonly memberId: string | null;
  readonly email: string;
  readonly role: MemberRole;
}

export interface WebSession {
  readonly account: Account;
  readonly user: WebUser;
  readonly principal: Principal;
  readonly csrf: string;
}

/** The founding owner's user, or a member's. */
export function userOf(account: Account, member?: Member | null): WebUser {
  return member
    ? { memberId: member.id, email: member.email, role: member.role }
    : { memberId: null, email: account.email, role: 'owner' };
}

const sessions = (db: Db) => db.collection<SessionDoc>(WEB_SESSIONS_COLLECTION);
const hashId = (id: string) => createHash('sha256').update(id).digest('hex');
const token = () => randomBytes(32).toString('base64url');

export function sameToken(a: unknown, b: string): boolean {
  if (typeof a !== 'string' || a.length !== b.length || b.length === 0) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.header('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function setCookie(res: Response, name: string, value: string, maxAgeMs: number): void {
  res.cookie(name, value, {
    secure: true,
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    maxAge: maxAgeMs,
  });
}

/** The double-submit token of the sign-up and login forms (set as a cookie when missing). */
export function anonymousCsrf(req: Request, res: Response): string {
  const existing = cookieOf(req, ANON_CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const fresh = token();
  setCookie(res, ANON_CSRF_COOKIE, fresh, SESSION_MS);
  return fresh;
}

export async function startSession(
  deps: ApiDeps,
  res: Response,
  account: Account,
  user: WebUser = userOf(account),
): Promise<void> {
  const id = token();
  const now = deps.now();
  // Expired sessions of this account go now, so they never pile up.
  await sessions(deps.db).deleteMany({ accountId: account.id, expiresAt: { $lte: now } });
  await sessions(deps.db).insertOne({
    _id: hashId(id),
    accountId: account.id,
    memberId: user.memberId,
    email: user.email,
    csrf: token(),
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_MS),
  });
  setCookie(res, SESSION_COOKIE, id, SESSION_MS);
}

export async function endSession(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const id = cookieOf(req, SESSION_COOKIE);
  if (id) await sessions(deps.db).deleteOne({ _id: hashId(id) });
  clearSessionCookie(res);
}

function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { secure: true, httpOnly: true, sameSite: 'lax', path: '/' });
}

/**
 * Ends every session of the caller's user, the caller's included ("sign out everywhere"), and
 * their half-finished logins.
 */
export async function endAllSessions(deps: ApiDeps, res: Response, session: WebSession) {
  await sessions(deps.db).deleteMany({
    accountId: session.account.id,
    memberId: session.user.memberId,
  });
  await endPendingLogins(deps.db, session.account.id, session.user.memberId);
  clearSessionCookie(res);
}

/**
 * Ends every session and half-finished login of the caller's user and signs them in afresh
 * (after a password change).
 */
export async function renewOnlySession(deps: ApiDeps, res: Response, session: WebSession) {
  const { account, user } = session;
  await sessions(deps.db).deleteMany({ accountId: account.id, memberId: user.memberId });
  await endPendingLogins(deps.db, account.id, user.memberId);
  await startSession(deps, res, account, user);
}

/** The session's user as stored now: a removed member (or a changed owner email) has none. */
async function userOfSession(deps: ApiDeps, doc: SessionDoc, account: Account) {
  if (!doc.memberId) return doc.email === account.email ? userOf(account) : null;
  const member = await accountsCollections(deps.db).members.findOne({
    _id: new ObjectId(doc.memberId),
    accountId: account.id,
  });
  return member ? { memberId: doc.memberId, email: member.email, role: member.role } : null;
}

export async function findSession(deps: ApiDeps, req: Request): Promise<WebSession | null> {
  const id = cookieOf(req, SESSION_COOKIE);
  if (!id) return null;
  const doc = await sessions(deps.db).findOne({ _id: hashId(id) });
  if (!doc || doc.expiresAt.getTime() <= deps.now().getTime()) return null;
  const account = await deps.accounts.findById(doc.accountId);
  const user = account ? await userOfSession(deps, doc, account) : null;
  if (!account || !user) return null;
  const principal = principalOf({
    accountId: account.id,
    kind: 'session',
    id: user.memberId ?? account.id,
    role: user.role,
    name: user.email,
  });
  return { account, user, principal, csrf: doc.csrf };
}

/** Requires a session: GET goes to the login page, anything else is refused with 403. */
export function sessionAuth(deps: ApiDeps): RequestHandler {
  return async (req, res, next) => {
    const session = await findSession(deps, req);
    if (!session) {
      if (req.method === 'GET') res.redirect(303, '/ui/login');
      else res.status(403).type('text/plain').send('Sign in first.');
      return;
    }
    res.locals.account = session.account;
    res.locals.session = session;
    res.locals.principal = session.principal;
    next();
  };
}

/**
 * The one guard of every signed-in page (api/web/routes.ts): the session's role must hold `scope`,
 * else 403 with a page saying so. Runs after sessionAuth, before the body is read.
 */
export function requireScope(scope: Scope): RequestHandler {
  return (_req, res, next) => {
    const { principal, user } = currentSession(res);
    if (!decide(principal, { scope }).allow) {
      res.setHeader('Connection', 'close');
      res.status(403).type('text/plain').send(`Your role (${user.role}) may not do this.`);
      return;
    }
    next();
  };
}

export function currentSession(res: Response): WebSession {
  const session = res.locals.session as WebSession | undefined;
  if (!session) throw new Error('no web session on this request');
  return session;
}

/** Refuses (403) a urlencoded form whose `_csrf` field is not the session's token. */
export const csrfCheck: RequestHandler = (req, res, next) => {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (!sameToken(body._csrf, currentSession(res).csrf)) {
    res.status(403).type('text/plain').send('Missing or wrong CSRF token.');
    return;
  }
  next();
};
