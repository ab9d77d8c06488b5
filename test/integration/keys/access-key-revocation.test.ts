/**
 * A revocation holds whatever use races it (docs/keys.md, "Last use"). Found by a CI run: a CI
 * token used and revoked at once was accepted again, because the last-use write, sent just before
 * the revocation, rewrote the key's document without `revokedAt` (FerretDB v1 rewrites whole
 * documents). Against the real database, keys are used and revoked at the same moment many times;
 * each must stay revoked once its use is on record (the marker that the racing write has landed).
 */
import { randomBytes } from 'node:crypto';
import { createAccessKeys } from '../../../shared/accounts/access-keys';
import { ensureAccountsIndexes } from '../../../shared/accounts/collections';
import type { AuditContext } from '../../../shared/audit/types';
import { createKeyRing } from '../../../shared/crypto/keys';
import { eventually } from '../../helpers/eventually';
import { useIsolatedMongo } from '../../helpers/services';

jest.setTimeout(120_000);
const store = useIsolatedMongo();
const ROUNDS = 4;
const KEYS_PER_ROUND = 25;
const ctx: AuditContext = {
  actor: { kind: 'account-key', id: 'test', name: 'test' },
  address: null,
};

test(`${ROUNDS * KEYS_PER_ROUND} keys used and revoked at once all stay revoked`, async () => {
  const db = store.mongo.db;
  await ensureAccountsIndexes(db);
  const access = createAccessKeys(db, createKeyRing(randomBytes(32)));
  const accountId = randomBytes(12).toString('hex');
  for (let round = 0; round < ROUNDS; round += 1) {
    const made = await Promise.all(
      Array.from({ length: KEYS_PER_ROUND }, (_, i) =>
        access.create(
          accountId,
          { kind: 'ci-token', name: `r${round}k${i}`, apps: ['dev.apkrelay.sample'] },
          ctx,
        ),
      ),
    );
    await Promise.all(
      made.map(async ({ key, secret }) => {
        // The use's last-use write leaves with this answer and is still on its way.
        expect(await access.authenticate(secret)).not.toBeNull();
        await access.revoke(accountId, key.id, ctx);
      }),
    );
    const ids = new Set(made.map((m) => m.key.id));
    const mine = async () => (await access.list(accountId)).filter((k) => ids.has(k.id));
    await eventually('every use on record', async () =>
      (await mine()).every((k) => k.lastUsedAt !== null),
    );
    expect((await mine()).filter((k) => k.revokedAt === null).map((k) => k.name)).toEqual([]);
    const accepted = await Promise.all(made.map((m) => access.authenticate(m.secret)));
    expect(accepted.filter((p) => p !== null)).toEqual([]);
  }
});

test('the listing shows last use from its own record, and revoking answers it', async () => {
  const db = store.mongo.db;
  let clock = Date.parse('2026-11-29T10:00:00Z');
  const access = createAccessKeys(db, createKeyRing(randomBytes(32)), () => new Date(clock));
  const accountId = randomBytes(12).toString('hex');
  const { key, secret } = await access.create(
    accountId,
    { kind: 'device-key', name: 'till', apps: ['dev.apkrelay.sample'] },
    ctx,
  );
  expect(key.lastUsedAt).toBeNull();
  await access.authenticate(secret);
  const lastUse = async () => (await access.list(accountId))[0]?.lastUsedAt;
  await eventually('the first use', async () => (await lastUse()) === '2026-11-29T10:00:00.000Z');
  // Within the minute: not written again; past it: the later time.
  clock += 30_000;
  await access.authenticate(secret);
  clock += 40_000;
  await access.authenticate(secret);
  await eventually('the later use', async () => (await lastUse()) === '2026-11-29T10:01:10.000Z');
  const revoked = await access.revoke(accountId, key.id, ctx);
  expect(revoked).toMatchObject({
    lastUsedAt: '2026-11-29T10:01:10.000Z',
    revokedAt: '2026-11-29T10:01:10.000Z',
  });
  // Another account sees none of it.
  expect(await access.list(randomBytes(12).toString('hex'))).toEqual([]);
});
