/**
 * JSON API of the audit log (docs/audit.md): the account's entries, filtered and paginated.
 * Entries cannot be changed: PUT and DELETE on one are answered 405 to everyone (these two routes
 * exist only to say so, and the access matrix checks they do).
 */
import type { Request, Response } from 'express';
import { listAudit, parseAuditFilter, presentAudit } from '../../shared/audit/list';
import { AppError } from '../../shared/errors';
import { bearerAuth, currentAccount } from '../auth';
import type { ApiDeps } from '../deps';
import { listAuditContract, refuseAuditChangeContract } from '../webhooks/contracts';
import type { Route } from '../route-table';

export async function listAuditEntries(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const filter = parseAuditFilter(req.query);
  const page = await listAudit(deps.db, currentAccount(res).id, filter);
  res.json({ entries: page.entries.map(presentAudit), next: page.next });
}

export function refuseAuditChange(_req: Request, res: Response): void {
  res.setHeader('Allow', 'GET');
  throw new AppError('METHOD_NOT_ALLOWED', {
    message: 'Audit entries are append-only: they cannot be changed or deleted.',
  });
}

export function auditRoutes(deps: ApiDeps): Route[] {
  const refusal = (method: 'put' | 'delete'): Route => ({
    method,
    path: '/api/v2/audit/:id',
    hosts: ['admin'],
    access: 'public',
    contract: refuseAuditChangeContract,
    handlers: [refuseAuditChange],
  });
  return [
    {
      method: 'get',
      path: '/api/v2/audit',
      hosts: ['admin'],
      access: 'apiKey',
      contract: listAuditContract,
      handlers: [bearerAuth(deps), (req, res) => listAuditEntries(deps, req, res)],
    },
    refusal('put'),
    refusal('delete'),
  ];
}
