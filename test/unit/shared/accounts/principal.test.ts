/**
 * The access decisions of shared/accounts/principal.ts against a table written by hand from the
 * issue (#20, "key kinds") and docs/keys.md: which kind may do what, on which app.
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
};

// Written by hand: rows are needs, columns the principals in the order declared above.
const S = 'KEY_SCOPE_REFUSED';
const P = 'KEY_APP_REFUSED';
const Y = 'allow';
//                                accountKey restricted session deviceKeyA ciTokenA ciTokenAB
const table: Record<string, Cell[]> = {
  'device A': /*            */ [Y, Y, Y, Y, S, S],
  'device B': /*            */ [Y, Y, Y, P, S, S],
  'device (no app)': /*     */ [Y, Y, Y, Y, S, S],
  'upload A': /*            */ [Y, S, Y, S, Y, Y],
  'upload B': /*            */ [Y, S, Y, S, P, Y],
  'upload status': /*       */ [Y, S, Y, S, Y, Y],
  'make-current A': /*      */ [Y, S, Y, S, Y, Y],
  'make-current B': /*      */ [Y, S, Y, S, P, Y],
  'manage A': /*            */ [Y, S, Y, S, S, S],
  manage: /*                */ [Y, S, Y, S, S, S],
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
});
