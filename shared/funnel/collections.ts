/**
 * The funnel feature's collection and its index (every feature of shared/ has one such file, of the
 * same shape: `<feature>Collections(db)` and `ensure<Feature>Indexes(db)`; shared/indexes.ts
 * gathers the indexes).
 */
import type { Db, ObjectId } from 'mongodb';
import { collectionsOf } from '../collections';
import type { FunnelMark } from './stages';
import { ensureTransferIndexes } from './transfers';

export const FUNNEL_COLLECTION = 'install_funnel';

export interface MarkDoc extends FunnelMark {
  _id: ObjectId;
  readonly accountId: string;
  readonly package: string;
}

export function funnelCollections(db: Db) {
  return collectionsOf<{ marks: MarkDoc }>(db, { marks: FUNNEL_COLLECTION });
}

export async function ensureFunnelIndexes(db: Db): Promise<void> {
  const { marks } = funnelCollections(db);
  await marks.createIndex(
    { accountId: 1, package: 1, md5: 1, installation: 1 },
    { name: 'apk_installation' },
  );
  await ensureTransferIndexes(db);
}
