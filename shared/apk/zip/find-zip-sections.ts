/**
 * Locates the End of Central Directory record and the central directory, as apksig does.
 * Port of AOSP apksig `internal/zip/ZipUtils.findZipEndOfCentralDirectoryRecord` and
 * `apk/ApkUtils.findZipSections`: first try an EOCD with an empty comment, then scan back over
 * the largest possible comment; the record is accepted only when its comment length field
 * matches the bytes that follow it.
 */
import { ApkFormatError, ApkIssueCode } from '../issues';
import type { RandomAccessSource } from '../random-access';
import type { ZipSections } from './types';

export const EOCD_SIGNATURE = 0x06054b50;
export const EOCD_MIN_SIZE = 22;
const ZIP64_EOCD_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_LOCATOR_SIZE = 20;
const UINT16_MAX = 0xffff;

/** Offset of the EOCD inside `buf` whose comment runs exactly to the end of `buf`, or -1. */
export function findEocdInBuffer(buf: Buffer): number {
  if (buf.length < EOCD_MIN_SIZE) return -1;
  const maxComment = Math.min(buf.length - EOCD_MIN_SIZE, UINT16_MAX);
  const emptyCommentStart = buf.length - EOCD_MIN_SIZE;
  for (let commentLength = 0; commentLength <= maxComment; commentLength++) {
    const start = emptyCommentStart - commentLength;
    if (
      buf.readUInt32LE(start) === EOCD_SIGNATURE &&
      buf.readUInt16LE(start + 20) === commentLength
    ) {
      return start;
    }
  }
  return -1;
}

async function findEocd(
  source: RandomAccessSource,
  maxComment: number,
): Promise<{ offset: number; eocd: Buffer } | null> {
  const comment = Math.min(maxComment, source.size - EOCD_MIN_SIZE);
  const tailOffset = source.size - EOCD_MIN_SIZE - comment;
  const tail = await source.read(tailOffset, EOCD_MIN_SIZE + comment);
  const at = findEocdInBuffer(tail);
  if (at < 0) return null;
  return { offset: tailOffset + at, eocd: Buffer.from(tail.subarray(at)) };
}

export async function findZipSections(source: RandomAccessSource): Promise<ZipSections> {
  if (source.size < EOCD_MIN_SIZE) {
    throw new ApkFormatError(
      source.size === 0 ? ApkIssueCode.APK_TRUNCATED : ApkIssueCode.NOT_A_ZIP,
      `input of ${source.size} bytes is too short to be a ZIP archive`,
    );
  }
  const found = (await findEocd(source, 0)) ?? (await findEocd(source, UINT16_MAX));
  if (found === null) {
    throw new ApkFormatError(
      ApkIssueCode.NOT_A_ZIP,
      'ZIP End of Central Directory record not found',
    );
  }
  const { offset: eocdOffset, eocd } = found;
  if (eocdOffset >= ZIP64_EOCD_LOCATOR_SIZE) {
    const locator = await source.read(eocdOffset - ZIP64_EOCD_LOCATOR_SIZE, 4);
    if (locator.readUInt32LE(0) === ZIP64_EOCD_LOCATOR_SIGNATURE) {
      throw new ApkFormatError(ApkIssueCode.ZIP64_UNSUPPORTED, 'ZIP64 APK not supported');
    }
  }
  const cdRecordCount = eocd.readUInt16LE(10);
  const cdSize = eocd.readUInt32LE(12);
  const cdOffset = eocd.readUInt32LE(16);
  if (cdOffset > eocdOffset) {
    throw new ApkFormatError(
      ApkIssueCode.NOT_A_ZIP,
      `ZIP Central Directory start offset out of range: ${cdOffset}. ZIP End of Central Directory offset: ${eocdOffset}`,
    );
  }
  if (cdOffset + cdSize > eocdOffset) {
    throw new ApkFormatError(
      ApkIssueCode.NOT_A_ZIP,
      `ZIP Central Directory overlaps with End of Central Directory. CD end: ${cdOffset + cdSize}, EoCD start: ${eocdOffset}`,
    );
  }
  return { cdOffset, cdSize, cdRecordCount, eocdOffset, eocd };
}
