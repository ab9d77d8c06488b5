/**
 * The proof a patch passes before it is published: the stored patch (read back from the blob
 * store, decrypted) applied to the old APK's bytes with the device's applier of its format gives
 * exactly the target APK: its size, MD5 and SHA-256. An ARDELTA2 patch's dfOld is built in
 * memory here (the server holds both APKs while generating anyway). Returns what went wrong, or
 * null when proven.
 */
import { createHash } from 'node:crypto';
import {
  applyPatch,
  type ApplyTarget,
  type OldFile,
} from '../../device-client/protocol/delta/apply-patch';
import { applyPatch2 } from '../../device-client/protocol/delta/apply-patch2';
import type { Scratch } from '../../device-client/protocol/delta/df-old';
import { DeltaPatchError } from '../../device-client/protocol/delta/format';
import type { RandomAccessSource } from '../apk/random-access';
import { inflatePatch } from '../../device-client/node/inflater';
import type { DeltaFormat } from './collections';
import { streamSealed } from './stored-blob';

export interface ProofTarget {
  readonly size: number;
  readonly md5: string;
  readonly sha256: string;
}

const inMemory = (bytes: Uint8Array): OldFile => ({
  size: bytes.length,
  read: (at, n) => Promise.resolve(bytes.subarray(at, at + n)),
});

function memoryScratch(): Scratch {
  const parts: Uint8Array[] = [];
  return {
    append: (chunk) => Promise.resolve(void parts.push(Uint8Array.from(chunk))),
    finish: () => Promise.resolve(inMemory(Buffer.concat(parts))),
  };
}

export async function provePatch(
  patch: RandomAccessSource,
  old: Uint8Array,
  target: ProofTarget,
  format: DeltaFormat = 1,
): Promise<string | null> {
  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  const inflated = inflatePatch(streamSealed(patch));
  const out: ApplyTarget = { write: () => Promise.resolve(), hashers: [md5, sha256] };
  let size: number;
  try {
    size =
      format === 1
        ? await applyPatch(inflated, inMemory(old), out)
        : await applyPatch2(inflated, inMemory(old), memoryScratch(), out);
  } catch (err) {
    if (err instanceof DeltaPatchError) return `the patch is refused (${err.code}): ${err.message}`;
    throw err;
  }
  if (size !== target.size) return `the patch gives ${size} bytes, not ${target.size}`;
  if (md5.digest('hex') !== target.md5) return 'the patch gives another MD5';
  if (sha256.digest('hex') !== target.sha256) return 'the patch gives another SHA-256';
  return null;
}
