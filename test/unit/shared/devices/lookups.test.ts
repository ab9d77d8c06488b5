/** The push host's per-process caches of key and app look-ups (pure: a counting service). */
import type { Db } from 'mongodb';
import { deviceLookups } from '../../../../shared/devices/lookups';
import type { AccountsService } from '../../../../shared/accounts/service';
import type { Account } from '../../../../shared/accounts/types';

const account = { id: 'acc-1', email: 'a@example.com' } as unknown as Account;
const found = {
  account,
  principal: { accountId: 'acc-1', kind: 'account-key', id: 'acc-1', scopes: [], apps: 'all' },
} as const;

function lookups() {
  const asked: string[] = [];
  let now = 0;
  const accounts = {
    authenticateKey: (key: string) => {
      asked.push(key);
      return Promise.resolve(key === 'ak_good' ? found : null);
    },
  } as unknown as AccountsService;
  const l = deviceLookups({ accounts, db: {} as Db }, () => now);
  return { l, asked, advance: (ms: number) => (now += ms) };
}

test('a valid key is asked once per 5 s; a wrong key every time', async () => {
  const { l, asked, advance } = lookups();
  expect(await l.accounts.authenticateApiKey('ak_good')).toBe(account);
  expect(await l.accounts.authenticateApiKey('ak_good')).toBe(account);
  expect(await l.accounts.authenticateApiKey('ak_bad')).toBeNull();
  expect(await l.accounts.authenticateApiKey('ak_bad')).toBeNull();
  expect(asked).toEqual(['ak_good', 'ak_bad', 'ak_bad']);
  advance(5_001);
  await l.accounts.authenticateApiKey('ak_good');
  expect(asked).toEqual(['ak_good', 'ak_bad', 'ak_bad', 'ak_good']);
});

test('authenticateKey shares the cache: the principal is answered with the account', async () => {
  const { l, asked } = lookups();
  expect(await l.accounts.authenticateKey('ak_good')).toBe(found);
  expect(await l.accounts.authenticateApiKey('ak_good')).toBe(account);
  expect(asked).toEqual(['ak_good']);
});
