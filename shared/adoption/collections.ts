/**
 * The adoption feature's collection and its index (every feature of shared/ has one such file, of the
 * same shape: `<feature>Collections(db)` and `ensure<Feature>Indexes(db)`; shared/indexes.ts
 * gathers the indexes).
 */
import type { Db, ObjectId } from 'mongodb';
import { collectionsOf } from '../collections';
import type { VersionCount } from './points';

export const ADOPTION_COLLECTION = 'adoption_samples';

export interface SampleDoc {
  _id: ObjectId;
  accountId: string;
  package: string;
  at: Date;
  total: number;
  versions: VersionCount[];
}

export function adoptionCollections(db: Db) {
  return collectionsOf<{ samples: SampleDoc }>(db, { samples: ADOPTION_COLLECTION });
}

export async function ensureAdoptionIndexes(db: Db): Promise<void> {
  const { samples } = adoptionCollections(db);
  await samples.createIndex({ accountId: 1, package: 1, at: 1 }, { name: 'app_at' });
}
