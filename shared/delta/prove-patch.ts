/**
 * The proof a patch passes before it is published: the stored patch (read back from the blob
 * store, decrypted) applied to the old APK's bytes gives exactly the target APK: its size, MD5
 * and SHA-256. Returns what went wrong, or null when proven.
 */
import { createHash } from 'node:crypto';
import { applyPatch } from '../../device-client/protocol/delta/apply-patch';
import { DeltaPatchError } from '../../device-client/protocol/delta/format';
import type { RandomAccessSource } from '../apk/random-access';
import { inflatePatch } from '../../device-client/node/inflater';
import { streamSealed } from './stored-blob';

export interface ProofTarget {
  readonly size: number;
  readonly md5: string;
  readonly sha256: string;
}

export async function provePatch(
  patch: RandomAccessSource,
  old: Uint8Array,
  target: ProofTarget,
): Promise<string | null> {
  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  let size: number;
  try {
    size = await applyPatch(
      inflatePatch(streamSealed(patch)),
      { size: old.length, read: (at, n) => Promise.resolve(old.subarray(at, at + n)) },
      { write: () => Promise.resolve(), hashers: [md5, sha256] },
    );
  } catch (err) {
    if (err instanceof DeltaPatchError) return `the patch is refused (${err.code}): ${err.message}`;
    throw err;
  }
  if (size !== target.size) return `the patch gives ${size} bytes, not ${target.size}`;
  if (md5.digest('hex') !== target.md5) return 'the patch gives another MD5';
  if (sha256.digest('hex') !== target.sha256) return 'the patch gives another SHA-256';
  return null;
}
