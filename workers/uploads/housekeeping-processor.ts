/**
 * Processor of `housekeeping`. Idempotent: a blob is deleted only when no APK record owns it and
 * its upload is decided or stale, and deleting an already deleted blob is a no-op; expired
 * one-time claims are deleted too.
 */
import type { Db } from 'mongodb';
import type { HousekeepingPayload, HousekeepingResult } from '../../shared/queues/housekeeping';
import type { BlobStore } from '../../shared/storage/blob-store';
import { purgeExpiredClaims } from '../../shared/storage/claims';
import { rejection } from '../../shared/uploads/verdicts';
import type { Processor } from '../processor';
import { catalogCollections } from '../../shared/catalog/collections';

export interface HousekeepingDeps {
  readonly db: Db;
  readonly blobs: BlobStore;
  readonly now: () => Date;
}

export function housekeepingProcessor(
  deps: HousekeepingDeps,
): Processor<HousekeepingPayload, HousekeepingResult> {
  const { apks, uploads } = catalogCollections(deps.db);
  return async (payload, ctx) => {
    const cutoff = new Date(deps.now().getTime() - payload.olderThanMs);
    let removed = 0;
    for (const id of await deps.blobs.listBefore(cutoff)) {
      if (ctx.signal.aborted) break;
      if (await apks.findOne({ blobId: id }, { projection: { _id: 1 } })) continue;
      await uploads.updateOne(
        { _id: id, verdict: null },
        {
          $set: {
            status: 'failed',
            verdict: rejection('UPLOAD_FAILED', 'The upload was never completed.'),
            updatedAt: deps.now(),
          },
        },
      );
      await deps.blobs.delete(id);
      removed += 1;
    }
    if (removed > 0) ctx.log.info({ removed }, 'swept orphan blobs');
    const claimsPurged = await purgeExpiredClaims(deps.db, deps.now());
    return { removed, claimsPurged };
  };
}
