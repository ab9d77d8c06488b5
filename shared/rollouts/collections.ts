/**
 * The rollouts feature's collection (every feature of shared/ has one such file, of the same
 * shape: `<feature>Collections(db)`, and `ensure<Feature>Indexes(db)` when it has indexes; a
 * rollout's `_id` is its app's, so it needs none).
 */
import type { Db } from 'mongodb';
import { collectionsOf } from '../collections';
import { ROLLOUTS, type RolloutDoc } from './types';

export function rolloutsCollections(db: Db) {
  return collectionsOf<{ rollouts: RolloutDoc }>(db, { rollouts: ROLLOUTS });
}
