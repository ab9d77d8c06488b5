/**
 * `apkrelay keys reseal`: rewrites every value stored sealed (or keyed) under a previous master key
 * so that it is under the current one; after it, MASTER_KEY_PREVIOUS can be dropped.
 *
 * - `pinned_keys`: re-sealed; their values (link MAC key, push seed) never change.
 * - `accounts`: the API key is unsealed, then re-sealed and its lookup HMAC recomputed.
 * - `access_keys`: device keys and CI tokens, as accounts (docs/keys.md).
 * - `apks`: the per-APK data key is unwrapped and wrapped again (the APK bytes stay as they are).
 * - `webhook_endpoints`: each endpoint's signing secret is re-sealed (it never changes).
 * - `totp_factors`: each user's TOTP seed is re-sealed (it never changes; docs/teams.md).
 *
 * No transactions (the database may not have them): each value is one single-document update,
 * conditional on the old sealed value still being there (a concurrent change, such as a regenerated
 * API key, wins and is already under the current key). A value already under the current key is
 * skipped, so a run cut short is finished by running it again, and a second run changes nothing.
 */
import type { Db } from 'mongodb';
import { sealAccessKey, unsealAccessKey } from '../accounts/access-keys';
import { sealSeed, unsealSeed } from '../accounts/totp-factors';
import { apiKeyLookup, sealApiKey, unsealApiKey } from '../accounts/api-keys';
import { unwrapDataKey, wrapDataKey } from '../crypto/data-keys';
import type { KeyRing } from '../crypto/keys';
import { pinnedAad } from '../crypto/pinned-keys';
import { seal, sealedUnderCurrent, unseal } from '../crypto/seal';
import { secretAad, underEndpointLock } from '../webhooks/endpoints';
import { webhooksCollections } from '../webhooks/collections';
import { catalogCollections } from '../catalog/collections';
import { cryptoCollections } from '../crypto/collections';
import { accountsCollections } from '../accounts/collections';
import { underAccessKeyLock, underAccountLock, underFactorLock } from '../accounts/doc-locks';

export interface ResealReport {
  /** The current master key's id: every value is under it now. */
  readonly keyId: string;
  /** Values rewritten, per collection (0: already under the current key). */
  readonly resealed: {
    accounts: number;
    access_keys: number;
    apks: number;
    pinned_keys: number;
    webhook_endpoints: number;
    totp_factors: number;
  };
}

async function resealPinned(db: Db, keys: KeyRing): Promise<number> {
  let n = 0;
  for await (const doc of cryptoCollections(db).pinnedKeys.find({})) {
    const value = unseal(keys, 'pinned-key-seal', doc.sealed, pinnedAad(doc._id));
    if (sealedUnderCurrent(keys, doc.sealed)) continue;
    const sealed = seal(keys, 'pinned-key-seal', value, pinnedAad(doc._id));
    n += (
      await cryptoCollections(db).pinnedKeys.updateOne(
        { _id: doc._id, sealed: doc.sealed },
        { $set: { sealed } },
      )
    ).modifiedCount;
  }
  return n;
}

async function resealAccounts(db: Db, keys: KeyRing): Promise<number> {
  const accounts = accountsCollections(db).accounts;
  let n = 0;
  const cursor = accounts.find({}, { projection: { apiKeySealed: 1, apiKeyLookup: 1 } });
  for await (const doc of cursor) {
    const id = doc._id.toHexString();
    const apiKey = unsealApiKey(keys, id, doc.apiKeySealed);
    const lookup = apiKeyLookup(keys, apiKey);
    if (sealedUnderCurrent(keys, doc.apiKeySealed) && doc.apiKeyLookup === lookup) continue;
    const result = await underAccountLock(db, doc._id, () =>
      accounts.updateOne(
        { _id: doc._id, apiKeySealed: doc.apiKeySealed },
        { $set: { apiKeySealed: sealApiKey(keys, id, apiKey), apiKeyLookup: lookup } },
      ),
    );
    n += result.modifiedCount;
  }
  return n;
}

async function resealAccessKeys(db: Db, keys: KeyRing): Promise<number> {
  const c = accountsCollections(db).accessKeys;
  let n = 0;
  for await (const doc of c.find({}, { projection: { sealed: 1, lookup: 1 } })) {
    const id = doc._id.toHexString();
    const secret = unsealAccessKey(keys, id, doc.sealed);
    const lookup = apiKeyLookup(keys, secret);
    if (sealedUnderCurrent(keys, doc.sealed) && doc.lookup === lookup) continue;
    const result = await underAccessKeyLock(db, doc._id, () =>
      c.updateOne(
        { _id: doc._id, sealed: doc.sealed },
        { $set: { sealed: sealAccessKey(keys, id, secret), lookup } },
      ),
    );
    n += result.modifiedCount;
  }
  return n;
}

async function resealApks(db: Db, keys: KeyRing): Promise<number> {
  const { apks } = catalogCollections(db);
  let n = 0;
  for await (const doc of apks.find({}, { projection: { blobId: 1, wrappedKey: 1 } })) {
    const dataKey = unwrapDataKey(keys, doc.wrappedKey, doc.blobId);
    if (sealedUnderCurrent(keys, doc.wrappedKey)) continue;
    const wrappedKey = wrapDataKey(keys, dataKey, doc.blobId);
    n += (
      await apks.updateOne({ _id: doc._id, wrappedKey: doc.wrappedKey }, { $set: { wrappedKey } })
    ).modifiedCount;
  }
  return n;
}

async function resealWebhooks(db: Db, keys: KeyRing): Promise<number> {
  let n = 0;
  for await (const doc of webhooksCollections(db).endpoints.find(
    {},
    { projection: { secretSealed: 1 } },
  )) {
    const secret = unseal(keys, 'webhook-secret-seal', doc.secretSealed, secretAad(doc._id));
    if (sealedUnderCurrent(keys, doc.secretSealed)) continue;
    const secretSealed = seal(keys, 'webhook-secret-seal', secret, secretAad(doc._id));
    n += (
      await underEndpointLock(db, doc._id, () =>
        webhooksCollections(db).endpoints.updateOne(
          { _id: doc._id, secretSealed: doc.secretSealed },
          { $set: { secretSealed } },
        ),
      )
    ).modifiedCount;
  }
  return n;
}

async function resealTotpSeeds(db: Db, keys: KeyRing): Promise<number> {
  let n = 0;
  for await (const doc of accountsCollections(db).totpFactors.find(
    {},
    { projection: { seedSealed: 1 } },
  )) {
    const seed = unsealSeed(keys, doc);
    if (sealedUnderCurrent(keys, doc.seedSealed)) continue;
    const seedSealed = sealSeed(keys, doc._id, seed);
    n += (
      await underFactorLock(db, doc._id, () =>
        accountsCollections(db).totpFactors.updateOne(
          { _id: doc._id, seedSealed: doc.seedSealed },
          { $set: { seedSealed } },
        ),
      )
    ).modifiedCount;
  }
  return n;
}

/**
 * Reseals everything under the current key. Fails with MASTER_KEY_MISSING (naming the key id)
 * on the first value sealed under a key the ring lacks; what was done before stays done.
 */
export async function resealAll(db: Db, keys: KeyRing): Promise<ResealReport> {
  const pinned_keys = await resealPinned(db, keys);
  const accounts = await resealAccounts(db, keys);
  const access_keys = await resealAccessKeys(db, keys);
  const apks = await resealApks(db, keys);
  const webhook_endpoints = await resealWebhooks(db, keys);
  const totp_factors = await resealTotpSeeds(db, keys);
  return {
    keyId: keys.id,
    resealed: { accounts, access_keys, apks, pinned_keys, webhook_endpoints, totp_factors },
  };
}
