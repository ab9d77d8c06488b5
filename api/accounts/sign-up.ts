/**
 * Public sign-up, shared by `POST /api/v2/accounts` and the web form: refused with 403
 * SIGNUP_CLOSED when SIGNUP=closed, then the input is checked (400, not counted: it creates
 * nothing and reveals nothing), then the attempt is counted per client address
 * (shared/accounts/signup-throttle.ts; 429 SIGNUP_RATE_LIMITED with Retry-After past the limit),
 * then the account is created, its first audit entry `account.created` (actor `sign-up`). Taken emails count like new accounts, so probing them is limited
 * too. The operator CLI (`apkrelay account create`) goes to the database directly and is subject
 * to none of this.
 */
import type { ServerResponse } from 'node:http';
import type { Account } from '../../shared/accounts/types';
import { validateSignUp, type SignUp } from '../../shared/accounts/service';
import { recordAudit } from '../../shared/audit/record';
import { AppError, coerceError } from '../../shared/errors';
import { clientAddress, refuseFor, type ClientView } from '../auth';
import type { ApiDeps } from '../deps';

type SignUpDeps = Pick<ApiDeps, 'accounts' | 'signups' | 'now' | 'log' | 'db'>;

export async function publicSignUp(
  deps: SignUpDeps,
  req: ClientView,
  res: Pick<ServerResponse, 'setHeader'>,
  input: Pick<SignUp, 'email' | 'password'>,
): Promise<{ account: Account; apiKey: string }> {
  if (!deps.signups.open) throw new AppError('SIGNUP_CLOSED');
  validateSignUp(input);
  let waitMs = 0;
  try {
    waitMs = await deps.signups.throttle.attempted(clientAddress(req), deps.now().getTime());
  } catch (err) {
    // As with failed API keys, an outage of the throttle never turns a request away.
    deps.log.warn({ err: coerceError(err) }, 'sign-up throttle unavailable');
  }
  if (waitMs > 0) refuseFor(res, 'SIGNUP_RATE_LIMITED', waitMs);
  const created = await deps.accounts.create({ email: input.email, password: input.password });
  const { account } = created;
  // The account's first entry (issue 31): who signed up, from where.
  const actor = { kind: 'sign-up', id: account.id, name: account.email };
  const change = {
    accountId: account.id,
    action: 'account.created' as const,
    resource: { kind: 'account', id: account.id },
    details: { email: account.email, installations: account.plan.installations },
  };
  await recordAudit(deps.db, { actor, address: clientAddress(req) }, change, deps.now());
  return created;
}
