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

/** What emitting a webhook event needs, from the API's deps. */
export function emitDeps(
  deps: Pick<ApiDeps, 'db' | 'now' | 'deliveries'> & Partial<Pick<ApiDeps, 'redeliveries'>>,
): EmitDeps {
  const throttle = deps.redeliveries ? { redeliveries: deps.redeliveries } : {};
  return { db: deps.db, now: deps.now, deliveries: deps.deliveries, ...throttle };
}

/** The `upload.accepted` entry of an upload the API took in (before its verdict). */
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
      action: 'upload.accepted',
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
