/**
 * The collection of the keys pinned under the master key (crypto/pinned-keys.ts), in the shape
 * every feature of shared/ uses: `<feature>Collections(db)` (it needs no index: `_id` is the
 * key's purpose).
 */
import type { Db } from 'mongodb';
import { collectionsOf } from '../collections';
import type { PinnedPurpose } from './keys';

export const PINNED_KEYS = 'pinned_keys';

export interface PinnedKeyDoc {
  _id: PinnedPurpose;
  sealed: string;
  createdAt: Date;
}

export function cryptoCollections(db: Db) {
  return collectionsOf<{ pinnedKeys: PinnedKeyDoc }>(db, { pinnedKeys: PINNED_KEYS });
}
