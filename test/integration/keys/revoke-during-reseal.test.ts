/**
 * A revocation holds when the operator's reseal (docs/key-rotation.md) rewrites the same keys at
 * that moment: both write the key's document, and on the default store two updates of one
 * document at once can undo each other (shared/storage/claims.ts), so both take its lock
 * (shared/accounts/doc-locks.ts). Keys revoked while a reseal runs, round after round, each round
 * a new master key: every one must stay revoked, and none may sign in under the new key.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAccessKeys } from '../../../shared/accounts/access-keys';
import { ensureAccountsIndexes } from '../../../shared/accounts/collections';
import type { AuditContext } from '../../../shared/audit/types';
import { createKeyRing } from '../../../shared/crypto/keys';
import { resealAll } from '../../../shared/key-rotation/reseal';
import { ensureClaimsIndexes } from '../../../shared/storage/claims';
import { useIsolatedMongo } from '../../helpers/services';

jest.setTimeout(180_000);
const store = useIsolatedMongo();
const ROUNDS = 8;
const KEYS_PER_ROUND = 8;
const ctx: AuditContext = {
  actor: { kind: 'account-key', id: 'test', name: 'test' },
  address: null,
};

test(`keys revoked during ${ROUNDS} reseals all stay revoked`, async () => {
  const db = store.mongo.db;
  await ensureAccountsIndexes(db);
  await ensureClaimsIndexes(db);
  const accountId = randomBytes(12).toString('hex');
  let master = randomBytes(32);
  const unrevoked: string[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const before = createAccessKeys(db, createKeyRing(master));
    const made = await Promise.all(
      Array.from({ length: KEYS_PER_ROUND }, (_, i) =>
        before.create(accountId, { kind: 'ci-token', name: `r${round}k${i}`, apps: ['a.b'] }, ctx),
      ),
    );
    const next = randomBytes(32);
    const ring = createKeyRing(next, [master]);
    await Promise.all([
      resealAll(db, ring),
      // Spread over the reseal's run, so that some land as it rewrites their key.
      ...made.map(({ key }, i) => sleep(i * 4).then(() => before.revoke(accountId, key.id, ctx))),
    ]);
    master = next;
    const after = createAccessKeys(db, createKeyRing(master));
    const ids = new Set(made.map((m) => m.key.id));
    const listed = (await after.list(accountId)).filter((k) => ids.has(k.id));
    unrevoked.push(...listed.filter((k) => k.revokedAt === null).map((k) => k.name));
    for (const { secret } of made)
      if ((await after.authenticate(secret)) !== null)
        unrevoked.push(`accepted ${secret.slice(0, 6)}`);
  }
  expect(unrevoked).toEqual([]);
});
