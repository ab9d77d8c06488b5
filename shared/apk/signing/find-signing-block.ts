/**
 * Locates the APK Signing Block and the signature-scheme blocks inside it.
 * Port of AOSP apksig `apk/ApkUtilsLite.findApkSigningBlock` and
 * `internal/apk/ApkSigningBlockUtilsLite.findApkSignatureSchemeBlock`: the central directory must
 * be immediately followed by the EOCD, the block must end with the magic "APK Sig Block 42", and
 * its header and footer size fields must agree. Any failure means "no signature" (apksig's
 * SignatureNotFoundException), except that a block too large to hold in memory is refused.
 */
import { ApkFormatError, ApkIssueCode } from '../issues';
import type { RandomAccessSource } from '../random-access';
import type { ZipSections } from '../zip/types';
import { ByteReader } from './byte-reader';

const MAGIC = Buffer.from('APK Sig Block 42', 'latin1');
const MIN_SIZE = 32;
/** Largest signing block read into memory. */
export const MAX_SIGNING_BLOCK_BYTES = 64 * 1024 * 1024;

export const BlockId = {
  V2: 0x7109871a,
  V3: 0xf05368c0,
  V31: 0x1b93ad61,
} as const;

export interface SigningBlock {
  /** File offset where the block starts; digests cover [0, offset). */
  readonly offset: number;
  /** The whole block, size fields and magic included. */
  readonly bytes: Buffer;
}

export type SigningBlockLookup =
  { found: true; block: SigningBlock } | { found: false; reason: string };

export async function findSigningBlock(
  source: RandomAccessSource,
  sections: ZipSections,
): Promise<SigningBlockLookup> {
  const cdStart = sections.cdOffset;
  if (cdStart + sections.cdSize !== sections.eocdOffset) {
    return {
      found: false,
      reason: 'ZIP Central Directory is not immediately followed by End of Central Directory',
    };
  }
  if (cdStart < MIN_SIZE) {
    return { found: false, reason: 'APK too small for APK Signing Block' };
  }
  const footer = await source.read(cdStart - 24, 24);
  if (!footer.subarray(8, 24).equals(MAGIC)) {
    return { found: false, reason: 'No APK Signing Block before ZIP Central Directory' };
  }
  const sizeInFooter = new ByteReader(footer).uint64();
  if (sizeInFooter < 24 || sizeInFooter > 0x7fffffff - 8) {
    return { found: false, reason: `APK Signing Block size out of range: ${sizeInFooter}` };
  }
  const total = sizeInFooter + 8;
  const offset = cdStart - total;
  if (offset < 0) {
    return { found: false, reason: `APK Signing Block offset out of range: ${offset}` };
  }
  const sizeInHeader = new ByteReader(await source.read(offset, 8)).uint64();
  if (sizeInHeader !== sizeInFooter) {
    return { found: false, reason: 'APK Signing Block sizes in header and footer do not match' };
  }
  if (total > MAX_SIGNING_BLOCK_BYTES) {
    throw new ApkFormatError(
      ApkIssueCode.APK_TOO_LARGE,
      `APK Signing Block of ${total} bytes exceeds ${MAX_SIGNING_BLOCK_BYTES}`,
    );
  }
  return { found: true, block: { offset, bytes: await source.read(offset, total) } };
}

/** The value of the ID-value pair `blockId`, or `null` (apksig: SignatureNotFoundException). */
export function findSchemeBlock(block: SigningBlock, blockId: number): Buffer | null {
  const pairs = new ByteReader(block.bytes.subarray(8, block.bytes.length - 24));
  while (pairs.hasRemaining()) {
    if (pairs.remaining < 8) return null;
    const len = pairs.uint64();
    if (len < 4 || len > 0x7fffffff || len > pairs.remaining) return null;
    const value = pairs.bytes(len);
    if (value.readUInt32LE(0) === blockId) return value.subarray(4);
  }
  return null;
}
