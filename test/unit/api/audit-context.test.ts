/**
 * `actorOf` (api/audit-context.ts): who the audit log names for a request, from what
 * authentication left on the response (docs/audit.md, actor kinds). Literal inputs.
 */
import type { Response } from 'express';
import { actorOf } from '../../../api/audit-context';
import type { Account } from '../../../shared/accounts/types';

const ACCOUNT = { id: '64b000000000000000000001', email: 'owner@example.com' } as Account;
const withLocals = (locals: Record<string, unknown>) => ({ locals }) as unknown as Response;

test.each([
  [
    'a web session of the founding owner: its user',
    {
      session: { account: ACCOUNT, user: { memberId: null, email: ACCOUNT.email, role: 'owner' } },
      account: ACCOUNT,
    },
    { kind: 'session', id: ACCOUNT.id, name: 'owner@example.com' },
  ],
  [
    'a web session of a team member: the member (docs/teams.md)',
    {
      session: {
        account: ACCOUNT,
        user: { memberId: '64b0000000000000000000aa', email: 'dev@example.com', role: 'viewer' },
      },
      account: ACCOUNT,
    },
    { kind: 'member', id: '64b0000000000000000000aa', name: 'dev@example.com' },
  ],
  [
    'the account key',
    { account: ACCOUNT, principal: { kind: 'account-key', id: ACCOUNT.id, accountId: ACCOUNT.id } },
    { kind: 'account-key', id: ACCOUNT.id, name: 'account key' },
  ],
  [
    'a CI token: its id and name',
    {
      account: ACCOUNT,
      principal: { kind: 'ci-token', id: 'ct1', accountId: ACCOUNT.id, name: 'nightly' },
    },
    { kind: 'ci-token', id: 'ct1', name: 'nightly' },
  ],
  [
    'a device key: its id and name',
    {
      account: ACCOUNT,
      principal: { kind: 'device-key', id: 'dk1', accountId: ACCOUNT.id, name: 'fleet' },
    },
    { kind: 'device-key', id: 'dk1', name: 'fleet' },
  ],
])('%s', (_label, locals, expected) => {
  expect(actorOf(withLocals(locals))).toEqual(expected);
});

test('no authenticated caller is a bug, not an anonymous entry', () => {
  expect(() => actorOf(withLocals({}))).toThrow('no authenticated caller');
});
