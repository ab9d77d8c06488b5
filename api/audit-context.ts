/**
 * Who is acting on a request, for the audit log (docs/audit.md): the web session's user (the
 * founding owner as `session`, a team member as `member`), else
 * the device key or CI token that authenticated it (its id and name), else the account key; and
 * the client address as the trusted proxies report it (TRUST_PROXY).
 */
import type { Response } from 'express';
import type { Principal } from '../shared/accounts/principal';
import type { Account } from '../shared/accounts/types';
import { recordAudit, type AuditChange } from '../shared/audit/record';
import type { Actor, AuditContext } from '../shared/audit/types';
import type { EmitDeps } from '../shared/webhooks/deliveries';
import { memberActor } from '../shared/accounts/team';
import { clientAddress, type ClientView } from './auth';
import type { WebSession } from './web/sessions';
import type { ApiDeps } from './deps';

export function actorOf(res: Response, account?: Account): Actor {
  const session = res.locals.session as WebSession | undefined;
  if (session?.user.memberId) {
    return memberActor({ id: session.user.memberId, email: session.user.email });
  }
  if (session) return { kind: 'session', id: session.account.id, name: session.account.email };
  const principal = res.locals.principal as Principal | undefined;
  if (principal?.kind === 'device-key' || principal?.kind === 'ci-token') {
    return { kind: principal.kind, id: principal.id, name: principal.name ?? principal.kind };
  }
  const acting = account ?? (res.locals.account as Account | undefined);
  if (!acting) throw new Error('no authenticated caller on this request');
  return { kind: 'account-key', id: acting.id, name: 'account key' };
}

export function auditContext(req: ClientView, res: Response, account?: Account): AuditContext {
  return { actor: actorOf(res, account), address: clientAddress(req) };
}

/** Records `change` made by this request's caller. */
export async function audit(
  deps: Pick<ApiDeps, 'db' | 'now'>,
  req: ClientView,
  res: Response,
  change: AuditChange,
  account?: Account,
): Promise<void> {
  await recordAudit(deps.db, auditContext(req, res, account), change, deps.now());
}

/**
 * A change signed-in users make to themselves (password, sessions, second factor): the resource
 * is the member, or the account for the founding owner; the details name their email.
 */
export function selfChange(res: Response, action: AuditChange['action']): AuditChange {
  const session = res.locals.session as WebSession | undefined;
  if (!session) throw new Error('no web session on this request');
  const { account, user } = session;
  return {
    accountId: account.id,
    action,
    resource: { kind: 'member', id: user.memberId ?? account.id },
    details: { email: user.email },
  };
}

/** What emitting a webhook event needs, from the API's deps. */
export function emitDeps(
  deps: Pick<ApiDeps, 'db' | 'now' | 'deliveries'> & Partial<Pick<ApiDeps, 'redeliveries'>>,
): EmitDeps {
  const throttle = deps.redeliveries ? { redeliveries: deps.redeliveries } : {};
  return { db: deps.db, now: deps.now, deliveries: deps.deliveries, ...throttle };
}

/**
 * The `upload.received` entry of an upload the API took in and queued, before its verdict (which
 * the upload's status tells): a refused upload must not read as accepted (issue 31). Uploads
 * logged before the change read `upload.accepted`.
 */
export function auditUpload(
  deps: Pick<ApiDeps, 'db' | 'now'>,
  req: ClientView,
  res: Response,
  account: Account,
  uploadId: string,
  options: { readonly current: boolean; readonly expectedPackage: string | null },
): Promise<void> {
  return audit(
    deps,
    req,
    res,
    {
      accountId: account.id,
      action: 'upload.received',
      resource: { kind: 'upload', id: uploadId },
      details: { current: options.current, package: options.expectedPackage },
    },
    account,
  );
}

/** The `app.current.changed` entry: `apk` made current in its app. */
export function currentChange(
  app: { readonly accountId: string; readonly package: string },
  apk: { readonly sha256: string; readonly versionCode: number },
): AuditChange {
  return {
    accountId: app.accountId,
    action: 'app.current.changed',
    resource: { kind: 'app', id: app.package },
    details: { sha256: apk.sha256, versionCode: apk.versionCode },
  };
}

/** The `download-link.created` entry of a new link (its id, package, APK and bounds; no token). */
export function linkChange(
  action: 'download-link.created',
  link: {
    readonly _id: { toHexString(): string };
    readonly accountId: string;
    readonly package: string;
    readonly expiresAt: Date;
    readonly maxDownloads: number | null;
  },
  apk: { readonly sha256: string; readonly versionCode: number },
): AuditChange {
  return {
    accountId: link.accountId,
    action,
    resource: { kind: 'download-link', id: link._id.toHexString() },
    details: {
      package: link.package,
      sha256: apk.sha256,
      versionCode: apk.versionCode,
      expiresAt: link.expiresAt.toISOString(),
      maxDownloads: link.maxDownloads,
    },
  };
}

/** The `installation.enabled` / `.disabled` entry (the resource: package and device id). */
export function statusChange(
  app: { readonly accountId: string; readonly package: string },
  deviceId: string,
  status: 'enabled' | 'disabled',
): AuditChange {
  return {
    accountId: app.accountId,
    action: status === 'enabled' ? 'installation.enabled' : 'installation.disabled',
    resource: { kind: 'installation', id: `${app.package}/${deviceId}` },
    details: { package: app.package, deviceId },
  };
}
