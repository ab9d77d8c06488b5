/**
 * Applying ARDELTA1 patches in memory in tests: the old file from a buffer, the patch in chunks
 * of a chosen size, the output collected and hashed as the applier wrote it.
 */
import { createHash } from 'node:crypto';
import { applyPatch, type OldFile } from '../../device-client/protocol/delta/apply-patch';

export function bufferOld(bytes: Uint8Array): OldFile {
  return { size: bytes.length, read: (at, n) => Promise.resolve(bytes.subarray(at, at + n)) };
}

/** `bytes` as an async stream of `size`-byte chunks. */
export function chunked(bytes: Uint8Array, size = 1 << 20): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      let at = 0;
      return {
        next: () => {
          if (at >= bytes.length) return Promise.resolve({ done: true, value: undefined });
          const value = bytes.subarray(at, at + size);
          at += size;
          return Promise.resolve({ done: false, value });
        },
      };
    },
  };
}

/** Applies the inflated patch; the output and the SHA-256 the applier's hasher saw. */
export async function applyInMemory(
  inflated: AsyncIterable<Uint8Array>,
  old: Uint8Array,
): Promise<{ bytes: Buffer; sha256: string }> {
  const out: Buffer[] = [];
  const sha = createHash('sha256');
  await applyPatch(inflated, bufferOld(old), {
    write: (c) => Promise.resolve(void out.push(Buffer.from(c))),
    hashers: [sha],
  });
  return { bytes: Buffer.concat(out), sha256: sha.digest('hex') };
}
