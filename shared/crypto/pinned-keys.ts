/**
 * Pinned keys: the values that left the server and so must not change when the master key does,
 * the download-link MAC key (tokens in URLs) and the push signing seed (devices pin its public
 * key). Each is one document of `pinned_keys`, `{_id: purpose, sealed}`, sealed under the master
 * key (`pinned-key-seal`); `apkrelay keys reseal` re-seals it, its value never changes.
 *
 * The first process to start creates them with the derivation apkrelay used before they were
 * stored (HKDF of the oldest configured master key, see KeyRing.initialPinned), so an upgrade
 * keeps the links and the push key devices already have. Concurrent first starts race on the
 * unique `_id`: the loser reads the winner's document (both hold the same value anyway).
 */
import { MongoServerError, type Db } from 'mongodb';
import { PINNED_PURPOSES, type KeyRing, type PinnedPurpose } from './keys';
import { unseal, seal } from './seal';
import { AppError } from '../errors';
import { cryptoCollections } from './collections';

export const pinnedAad = (purpose: PinnedPurpose) => `pinned-key:${purpose}`;

async function loadOne(db: Db, keys: KeyRing, purpose: PinnedPurpose): Promise<Buffer> {
  const collection = cryptoCollections(db).pinnedKeys;
  let doc = await collection.findOne({ _id: purpose });
  if (!doc) {
    const sealed = seal(keys, 'pinned-key-seal', keys.initialPinned(purpose), pinnedAad(purpose));
    try {
      await collection.insertOne({ _id: purpose, sealed, createdAt: new Date() });
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
    }
    doc = await collection.findOne({ _id: purpose });
    if (!doc) {
      throw new AppError('STORE_INCONSISTENT', {
        message: `pinned key ${purpose} vanished while being created`,
      });
    }
  }
  return unseal(keys, 'pinned-key-seal', doc.sealed, pinnedAad(purpose));
}

/**
 * The ring with its pinned keys loaded (created on first use). Fails with MASTER_KEY_MISSING when
 * they are sealed under a key the ring lacks: processes refuse to start rather than serve with
 * wrong keys.
 */
export async function loadPinnedKeys(db: Db, keys: KeyRing): Promise<KeyRing> {
  const values = {} as Record<PinnedPurpose, Buffer>;
  for (const purpose of PINNED_PURPOSES) values[purpose] = await loadOne(db, keys, purpose);
  return keys.withPinned(values);
}
