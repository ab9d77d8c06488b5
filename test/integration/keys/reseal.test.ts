/**
 * Pinned keys and `keys reseal` on the real MongoDB-protocol server (docs/key-rotation.md):
 * concurrent first loads agree on one value; the values never change across a rotation and a
 * reseal; a reseal cut short (some values under the new key, some under the old, some v1) is
 * finished by running it again, and a second run changes nothing; a ring missing the old key
 * refuses naming it. Device keys, CI tokens, webhook secrets and TOTP seeds are resealed with the
 * rest.
 * Backups written under K1 open under K2 with K1 as previous.
 */
import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ObjectId } from 'mongodb';
import { createAccountsService } from '../../../shared/accounts/service';
import { pendingSeed, startTotp, userKey } from '../../../shared/accounts/totp-factors';
import { createBackup } from '../../../shared/backup/create-backup';
import { verifyBackup } from '../../../shared/backup/read-archive';
import { unwrapDataKey, wrapDataKey } from '../../../shared/crypto/data-keys';
import { createKeyRing } from '../../../shared/crypto/keys';
import { loadPinnedKeys } from '../../../shared/crypto/pinned-keys';
import { resealAll } from '../../../shared/key-rotation/reseal';
import { createEndpoint, openSecret } from '../../../shared/webhooks/endpoints';
import type { EndpointDoc } from '../../../shared/webhooks/types';
import { testLogger, useIsolatedMongo } from '../../helpers/services';

const store = useIsolatedMongo();
const K1 = randomBytes(32);
const K2 = randomBytes(32);
const idOf = (k: Buffer) =>
  createHmac('sha256', k).update('apkrelay/key-id').digest('hex').slice(0, 8);
const hkdf = (k: Buffer, purpose: string) =>
  Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), `apkrelay/${purpose}`, 32));

/** A data key wrapped the way apkrelay did before key ids (v1). */
function v1Wrap(master: Buffer, dataKey: Buffer, blobId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', hkdf(master, 'data-key-wrap'), iv);
  cipher.setAAD(Buffer.from(`data-key:${blobId}`));
  const ct = Buffer.concat([cipher.update(dataKey), cipher.final()]);
  return ['v1', iv, ct, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

test('concurrent first loads create one value per pinned key: the old derivation of K1', async () => {
  const db = store.mongo.db;
  const rings = await Promise.all([1, 2, 3].map(() => loadPinnedKeys(db, createKeyRing(K1))));
  for (const ring of rings) {
    expect(ring.pinned('download-link')).toEqual(hkdf(K1, 'download-link'));
    expect(ring.pinned('push-signing')).toEqual(hkdf(K1, 'push-signing'));
  }
  expect(await db.collection('pinned_keys').countDocuments()).toBe(2);
});

test('a reseal cut short finishes on the next run; values never change', async () => {
  const db = store.mongo.db;
  const accounts = createAccountsService(db, createKeyRing(K1));
  const { account, apiKey } = await accounts.create({
    email: 'reseal@example.com',
    password: 'password-123',
  });
  // A device key and a CI token sealed under K1: the reseal moves them with the account key.
  const by = { actor: { kind: 'system', id: 'test', name: 'test' }, address: null };
  const apps = ['dev.apkrelay.sample'];
  const dk = await accounts.accessKeys.create(
    account.id,
    { kind: 'device-key', name: 'fleet', apps },
    by,
  );
  const ct = await accounts.accessKeys.create(
    account.id,
    { kind: 'ci-token', name: 'ci', apps },
    by,
  );
  const dataKeys = [randomBytes(32), randomBytes(32), randomBytes(32)];
  const blobIds = dataKeys.map(() => new ObjectId().toHexString());
  const rotated = createKeyRing(K2, [K1]);
  // One APK wrapped the v1 way, one under K1 (v2), one already under K2: a run cut short.
  const wrapped = [
    v1Wrap(K1, dataKeys[0]!, blobIds[0]!),
    wrapDataKey(createKeyRing(K1), dataKeys[1]!, blobIds[1]!),
    wrapDataKey(rotated, dataKeys[2]!, blobIds[2]!),
  ];
  await db
    .collection('apks')
    .insertMany(blobIds.map((blobId, i) => ({ blobId, wrappedKey: wrapped[i] })));

  const webhook = await createEndpoint(
    { db, keys: createKeyRing(K1), now: () => new Date() },
    by,
    account.id,
    { url: 'https://hooks.example.com/a', events: ['apk.accepted'] },
  );

  // The owner's TOTP seed, sealed under K1 (docs/teams.md).
  const totpUser = userKey(account.id, null);
  const seed = await startTotp(db, createKeyRing(K1), totpUser, account.id, new Date());

  const first = await resealAll(db, rotated);
  expect(first).toEqual({
    keyId: idOf(K2),
    resealed: {
      accounts: 1,
      access_keys: 2,
      apks: 2,
      pinned_keys: 2,
      webhook_endpoints: 1,
      totp_factors: 1,
    },
  });
  expect((await resealAll(db, rotated)).resealed).toEqual({
    accounts: 0,
    access_keys: 0,
    apks: 0,
    pinned_keys: 0,
    webhook_endpoints: 0,
    totp_factors: 0,
  });
  expect(await pendingSeed(db, createKeyRing(K2), totpUser)).toBe(seed);

  // K2 alone now opens everything, and every value is what it was.
  const k2 = await loadPinnedKeys(db, createKeyRing(K2));
  expect(k2.pinned('download-link')).toEqual(hkdf(K1, 'download-link'));
  expect(k2.pinned('push-signing')).toEqual(hkdf(K1, 'push-signing'));
  const apks = await db.collection('apks').find().sort({ _id: 1 }).toArray();
  apks.forEach((apk, i) => {
    expect(String(apk.wrappedKey).startsWith(`v2.${idOf(K2)}.`)).toBe(true);
    expect(unwrapDataKey(k2, String(apk.wrappedKey), blobIds[i]!)).toEqual(dataKeys[i]);
  });
  const k2Accounts = createAccountsService(db, k2);
  expect((await k2Accounts.authenticateApiKey(apiKey))?.id).toBe(account.id);
  expect(await k2Accounts.revealApiKey(account.id)).toBe(apiKey);
  for (const { secret, key } of [dk, ct]) {
    expect((await k2Accounts.authenticateKey(secret))?.principal).toMatchObject({
      id: key.id,
      kind: key.kind,
    });
  }
  const sealed = await db.collection('access_keys').find().toArray();
  expect(sealed.map((d) => String(d.sealed).startsWith(`v2.${idOf(K2)}.`))).toEqual([true, true]);
  const [endpoint] = await db.collection<EndpointDoc>('webhook_endpoints').find().toArray();
  expect(endpoint!.secretSealed.startsWith(`v2.${idOf(K2)}.`)).toBe(true);
  expect(openSecret(createKeyRing(K2), endpoint!)).toBe(webhook.secret);
  // K1 no longer finds the keys: their lookups were recomputed under K2.
  const k1Accounts = createAccountsService(db, createKeyRing(K1));
  expect(await k1Accounts.authenticateApiKey(apiKey)).toBeNull();
  expect(await k1Accounts.authenticateKey(dk.secret)).toBeNull();
  expect(await k1Accounts.authenticateKey(ct.secret)).toBeNull();
});

test('a ring without the sealing key refuses, naming it, and changes nothing', async () => {
  const db = store.mongo.db;
  const K3 = randomBytes(32);
  const before = await db.collection('pinned_keys').find().toArray();
  await expect(loadPinnedKeys(db, createKeyRing(K3))).rejects.toThrow(
    new RegExp(`master key ${idOf(K2)}.*MASTER_KEY_PREVIOUS`),
  );
  await expect(resealAll(db, createKeyRing(K3))).rejects.toThrow(
    new RegExp(`master key ${idOf(K2)}`),
  );
  expect(await db.collection('pinned_keys').find().toArray()).toEqual(before);
});

test('a backup written under K1 verifies under K2 with K1 previous, and names K1 without it', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-reseal-backup-'));
  try {
    const options = { db: store.mongo.db, dir, at: new Date(), log: testLogger() };
    const { path: archive } = await createBackup({ ...options, keys: createKeyRing(K1) });
    expect((await verifyBackup(archive, createKeyRing(K2, [K1]))).ok).toBe(true);
    const refused = await verifyBackup(archive, createKeyRing(K2));
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused.problems)).toContain(`master key ${idOf(K1)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
