/**
 * What the operator changes from the command line (`apkrelay account …`, docs/audit.md), each
 * with its audit entry in the account's log, done by the CLI actor (no address): an account
 * created, a plan or role changed, a user's second factor reset (issue 31). A change that changes
 * nothing (a plan set to the one it has, a role granted twice) records nothing.
 */
import type { Db } from 'mongodb';
import { recordAudit, type AuditChange } from '../audit/record';
import type { Actor, AuditContext } from '../audit/types';
import type { KeyRing } from '../crypto/keys';
import { AppError } from '../errors';
import { endPendingLogins } from './pending-logins';
import { createAccountsService, normaliseEmail, type SignUp } from './service';
import { removeTotp, userKey } from './totp-factors';
import type { Account, Role } from './types';
import { accountsCollections } from './collections';

export const CLI_ACTOR: Actor = Object.freeze({
  kind: 'operator',
  id: 'cli',
  name: 'operator (apkrelay CLI)',
});
const CLI: AuditContext = Object.freeze({ actor: CLI_ACTOR, address: null });

const accountChange = (
  account: Account,
  action: AuditChange['action'],
  details: AuditChange['details'],
) =>
  ({
    accountId: account.id,
    action,
    resource: { kind: 'account', id: account.id },
    details,
  }) as const;

export async function createAccountByOperator(
  db: Db,
  keys: KeyRing,
  input: SignUp,
  now: Date,
): Promise<{ account: Account; apiKey: string }> {
  const created = await createAccountsService(db, keys).create(input);
  const { account } = created;
  const details = { email: account.email, installations: account.plan.installations };
  await recordAudit(db, CLI, accountChange(account, 'account.created', details), now);
  return created;
}

export async function setPlanByOperator(
  db: Db,
  keys: KeyRing,
  email: string,
  installations: number,
  now: Date,
): Promise<Account> {
  const service = createAccountsService(db, keys);
  const before = await service.findByEmail(email);
  const after = await service.setPlan(email, { installations });
  const from = before?.plan.installations ?? null;
  if (from !== after.plan.installations) {
    const details = { from, to: after.plan.installations };
    await recordAudit(db, CLI, accountChange(after, 'account.plan-changed', details), now);
  }
  return after;
}

export async function setRoleByOperator(
  db: Db,
  keys: KeyRing,
  change: { readonly email: string; readonly role: Role; readonly granted: boolean },
  now: Date,
): Promise<Account> {
  const service = createAccountsService(db, keys);
  const before = await service.findByEmail(change.email);
  const after = await service.setRole(change.email, change.role, change.granted);
  if ((before?.roles.includes(change.role) ?? false) !== after.roles.includes(change.role)) {
    const action = change.granted ? 'account.role-granted' : 'account.role-revoked';
    await recordAudit(db, CLI, accountChange(after, action, { role: change.role }), now);
  }
  return after;
}

/**
 * Turns a user's second factor off (the founding owner's or a member's, by email) and ends their
 * pending logins, for a user who lost their authenticator and recovery codes; audited as
 * `member.totp-reset`. `removed` is false (nothing recorded) when the user had none.
 */
export async function resetSecondFactor(
  db: Db,
  keys: KeyRing,
  email: string,
  now: Date,
): Promise<{ accountId: string; email: string; removed: boolean }> {
  const member = await accountsCollections(db).members.findOne({ email: normaliseEmail(email) });
  const account = member ? null : await createAccountsService(db, keys).findByEmail(email);
  const accountId = member?.accountId ?? account?.id;
  if (!accountId) throw new AppError('NOT_FOUND', { message: `no user with email ${email}` });
  const memberId = member ? member._id.toHexString() : null;
  const removed = await removeTotp(db, userKey(accountId, memberId));
  await endPendingLogins(db, accountId, memberId);
  const userEmail = member?.email ?? account!.email;
  if (removed) {
    await recordAudit(
      db,
      CLI,
      {
        accountId,
        action: 'member.totp-reset',
        resource: { kind: 'member', id: memberId ?? accountId },
        details: { email: userEmail },
      },
      now,
    );
  }
  return { accountId, email: userEmail, removed };
}
