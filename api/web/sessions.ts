/**
 * Web sessions: a random 256-bit id in a `__Host-` cookie (Secure, HttpOnly, SameSite=Lax, Path=/);
 * the server keeps only its SHA-256 in MongoDB with the account, the CSRF token of the session's
 * forms and the expiry. Before sign-in, forms carry a double-submit token whose cookie is also
 * `__Host-`. Login attempts are throttled in Redis (shared/accounts/login-throttle.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Db } from 'mongodb';
import type { Account } from '../../shared/accounts/types';
import type { ApiDeps } from '../deps';

export const SESSION_COOKIE = '__Host-apkrelay_session';
export const ANON_CSRF_COOKIE = '__Host-apkrelay_csrf';
const SESSION_MS = 12 * 3600 * 1000;

interface SessionDoc {
  _id: string;
  accountId: string;
  email: string;
  csrf: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface WebSession {
  readonly account: Account;
  readonly csrf: string;
}

const sessions = (db: Db) => db.collection<SessionDoc>('web_sessions');
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

export async function startSession(deps: ApiDeps, res: Response, account: Account): Promise<void> {
  const id = token();
  const now = deps.now();
  // Expired sessions of this account go now, so they never pile up.
  await sessions(deps.db).deleteMany({ accountId: account.id, expiresAt: { $lte: now } });
  await sessions(deps.db).insertOne({
    _id: hashId(id),
    accountId: account.id,
    email: account.email,
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

/** Ends every session of the account, the caller's included ("sign out everywhere"). */
export async function endAllSessions(deps: ApiDeps, res: Response, accountId: string) {
  await sessions(deps.db).deleteMany({ accountId });
  clearSessionCookie(res);
}

/** Ends every session of the account and signs the caller in afresh (after a password change). */
export async function renewOnlySession(deps: ApiDeps, res: Response, account: Account) {
  await sessions(deps.db).deleteMany({ accountId: account.id });
  await startSession(deps, res, account);
}

export async function findSession(deps: ApiDeps, req: Request): Promise<WebSession | null> {
  const id = cookieOf(req, SESSION_COOKIE);
  if (!id) return null;
  const doc = await sessions(deps.db).findOne({ _id: hashId(id) });
  if (!doc || doc.expiresAt.getTime() <= deps.now().getTime()) return null;
  const account = await deps.accounts.findByEmail(doc.email);
  if (!account || account.id !== doc.accountId) return null;
  return { account, csrf: doc.csrf };
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
