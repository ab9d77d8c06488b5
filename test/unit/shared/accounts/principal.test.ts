/**
 * The access decisions of shared/accounts/principal.ts against a table written by hand from the
 * issue (#20, "key kinds" and "teams"), docs/keys.md and docs/teams.md: which kind (and which web
 * user's role) may do what, on which app.
 */
import { decide, principalOf, type Need } from '../../../../shared/accounts/principal';

const A = 'com.example.a';
const B = 'com.example.b';
const acc = 'acc1';

const principals = {
  accountKey: principalOf({ accountId: acc, kind: 'account-key' }),
  restrictedKey: principalOf({ accountId: acc, kind: 'account-key', deviceOnly: true }),
  session: principalOf({ accountId: acc, kind: 'session' }),
  deviceKeyA: principalOf({ accountId: acc, kind: 'device-key', id: 'k1', apps: [A] }),
  ciTokenA: principalOf({ accountId: acc, kind: 'ci-token', id: 't1', apps: [A] }),
  ciTokenAB: principalOf({ accountId: acc, kind: 'ci-token', id: 't2', apps: [A, B] }),
  admin: principalOf({ accountId: acc, kind: 'session', id: 'm1', role: 'admin' }),
  developer: principalOf({ accountId: acc, kind: 'session', id: 'm2', role: 'developer' }),
  viewer: principalOf({ accountId: acc, kind: 'session', id: 'm3', role: 'viewer' }),
} as const;

type Cell = 'allow' | 'KEY_SCOPE_REFUSED' | 'KEY_APP_REFUSED';
const needs: Record<string, Need> = {
  'device A': { scope: 'device', package: A },
  'device B': { scope: 'device', package: B },
  'device (no app)': { scope: 'device' },
  'upload A': { scope: 'upload', package: A },
  'upload B': { scope: 'upload', package: B },
  'upload status': { scope: 'upload' },
  'make-current A': { scope: 'make-current', package: A },
  'make-current B': { scope: 'make-current', package: B },
  'manage A': { scope: 'manage', package: A },
  manage: { scope: 'manage' },
  read: { scope: 'read' },
  'read A': { scope: 'read', package: A },
  self: { scope: 'self' },
  'rollout A': { scope: 'rollout', package: A },
  members: { scope: 'members' },
  owner: { scope: 'owner' },
};

// Written by hand: rows are needs, columns the principals in the order declared above.
const S = 'KEY_SCOPE_REFUSED';
const P = 'KEY_APP_REFUSED';
const Y = 'allow';
//                         accountKey restricted session deviceKeyA ciTokenA ciTokenAB admin developer viewer
const table: Record<string, Cell[]> = {
  'device A': /*            */ [Y, Y, Y, Y, S, S, Y, S, S],
  'device B': /*            */ [Y, Y, Y, P, S, S, Y, S, S],
  'device (no app)': /*     */ [Y, Y, Y, Y, S, S, Y, S, S],
  'upload A': /*            */ [Y, S, Y, S, Y, Y, Y, Y, S],
  'upload B': /*            */ [Y, S, Y, S, P, Y, Y, Y, S],
  'upload status': /*       */ [Y, S, Y, S, Y, Y, Y, Y, S],
  'make-current A': /*      */ [Y, S, Y, S, Y, Y, Y, Y, S],
  'make-current B': /*      */ [Y, S, Y, S, P, Y, Y, Y, S],
  'manage A': /*            */ [Y, S, Y, S, S, S, Y, S, S],
  manage: /*                */ [Y, S, Y, S, S, S, Y, S, S],
  read: /*                  */ [S, S, Y, S, S, S, Y, Y, Y],
  'read A': /*              */ [S, S, Y, S, S, S, Y, Y, Y],
  self: /*                  */ [S, S, Y, S, S, S, Y, Y, Y],
  'rollout A': /*           */ [S, S, Y, S, S, S, Y, Y, S],
  members: /*               */ [S, S, Y, S, S, S, Y, S, S],
  owner: /*                 */ [S, S, Y, S, S, S, S, S, S],
};

const cases = Object.entries(table).flatMap(([need, cells]) =>
  Object.keys(principals).map((who, i) => [need, who, cells[i]!] as const),
);

test.each(cases)('%s as %s: %s', (need, who, expected) => {
  const d = decide(principals[who as keyof typeof principals], needs[need]!);
  expect(d.allow ? 'allow' : d.code).toBe(expected);
});

test('principals carry their kind, id and apps as given', () => {
  expect(principals.deviceKeyA).toEqual({
    accountId: acc,
    kind: 'device-key',
    id: 'k1',
    scopes: ['device'],
    apps: [A],
  });
  expect(principals.accountKey).toMatchObject({ id: acc, apps: 'all' });
  expect(principals.restrictedKey.scopes).toEqual(['device']);
  // The key kinds carry no role; a session without one is the founding owner's.
  expect(principals.accountKey).not.toHaveProperty('role');
  expect(principals.session).toMatchObject({ id: acc, role: 'owner', apps: 'all' });
  expect(principals.viewer).toMatchObject({ id: 'm3', role: 'viewer', apps: 'all' });
});
