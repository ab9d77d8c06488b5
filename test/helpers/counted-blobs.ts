/** A real blob store that records the ciphertext ranges asked of it, for tests of what is read. */
import type { BlobStore } from '../../shared/storage/blob-store';

export function countedBlobs(inner: BlobStore): BlobStore & { reads: Array<[number, number]> } {
  const reads: Array<[number, number]> = [];
  return {
    ...inner,
    reads,
    openRange(id, start, end) {
      reads.push([start, end]);
      return inner.openRange(id, start, end);
    },
  };
}
