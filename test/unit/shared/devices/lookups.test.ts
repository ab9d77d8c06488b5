/** The device routes' per-process caches of key, app and APK look-ups (pure: counting stores). */
import { ObjectId, type Db } from 'mongodb';
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

test('an APK document is read once found, kept 10 minutes, and only for its own account', async () => {
  const asked: string[] = [];
  const stored = { _id: new ObjectId(), accountId: 'acc-1', md5: 'a'.repeat(32) };
  const db = {
    collection: () => ({
      findOne: (filter: { _id: ObjectId; accountId: string }) => {
        asked.push(`${filter.accountId} ${filter._id.toHexString()}`);
        const match = filter._id.equals(stored._id) && filter.accountId === stored.accountId;
        return Promise.resolve(match ? stored : null);
      },
    }),
  } as unknown as Db;
  let now = 0;
  const l = deviceLookups({ accounts: {} as AccountsService, db }, () => now);
  const missing = new ObjectId();
  expect(await l.apk('acc-1', stored._id)).toBe(stored);
  expect(await l.apk('acc-1', stored._id)).toBe(stored);
  // Another account asking for the same id is asked of the store (and refused by it).
  expect(await l.apk('acc-2', stored._id)).toBeNull();
  expect(await l.apk('acc-1', missing)).toBeNull();
  expect(await l.apk('acc-1', missing)).toBeNull();
  const id = stored._id.toHexString();
  const expected = [`acc-1 ${id}`, `acc-2 ${id}`, `acc-1 ${missing.toHexString()}`];
  expect(asked).toEqual([...expected, `acc-1 ${missing.toHexString()}`]);
  now += 10 * 60_000 - 1;
  await l.apk('acc-1', stored._id);
  expect(asked).toHaveLength(4);
  now += 2;
  await l.apk('acc-1', stored._id);
  expect(asked).toEqual([...expected, `acc-1 ${missing.toHexString()}`, `acc-1 ${id}`]);
});
