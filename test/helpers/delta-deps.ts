/**
 * What `generateDelta` needs, over a test stack's real store: the APK and patch buckets, the
 * pinned keys under the stack's master key, the default settings; a test overrides what it tries.
 */
import { DELTA_BUCKET } from '../../shared/delta/collections';
import { DEFAULT_DELTA_SETTINGS, type GenerateDeltaDeps } from '../../shared/delta/generate-delta';
import { createKeyRing } from '../../shared/crypto/keys';
import { loadPinnedKeys } from '../../shared/crypto/pinned-keys';
import { gridFsBlobStore } from '../../shared/storage/blob-store';
import type { TestStack } from './stack';

export async function generateDeltaDeps(
  stack: Pick<TestStack, 'mongo' | 'masterKey'>,
  overrides: Partial<GenerateDeltaDeps> = {},
): Promise<GenerateDeltaDeps> {
  return {
    db: stack.mongo.db,
    apkBlobs: gridFsBlobStore(stack.mongo.db),
    deltaBlobs: gridFsBlobStore(stack.mongo.db, DELTA_BUCKET),
    keys: await loadPinnedKeys(stack.mongo.db, createKeyRing(stack.masterKey, [])),
    now: () => new Date(),
    settings: DEFAULT_DELTA_SETTINGS,
    ...overrides,
  };
}
