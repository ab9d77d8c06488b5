/**
 * Parses the ZIP central directory into entries, enforcing the reader's hard limits.
 * Port of AOSP apksig `internal/zip/CentralDirectoryRecord.getRecord` and
 * `internal/apk/v1/V1SchemeVerifier.parseZipCentralDirectory`: the record count comes from the
 * EOCD, bytes after the last counted record are ignored (as Android does), names are UTF-8.
 * Added here: duplicate names, entry count, declared sizes and compression ratio (zip bombs).
 */
import { ApkFormatError, ApkIssueCode } from '../issues';
import type { ZipLimits } from './limits';
import type { ZipEntry } from './types';

const CD_RECORD_SIGNATURE = 0x02014b50;
const CD_RECORD_MIN_SIZE = 46;
const UINT32_MAX = 0xffffffff;

function malformed(index: number, offset: number, why: string): ApkFormatError {
  return new ApkFormatError(
    ApkIssueCode.ZIP_MALFORMED_CD_RECORD,
    `Malformed ZIP Central Directory record #${index + 1} at file offset ${offset}: ${why}`,
  );
}

/** One record at `pos` in `cd`; returns the entry and the position after it. */
function parseRecord(
  cd: Buffer,
  pos: number,
  index: number,
  cdOffset: number,
): { entry: ZipEntry; next: number } {
  const where = cdOffset + pos;
  if (cd.length - pos < CD_RECORD_MIN_SIZE) throw malformed(index, where, 'input too short');
  if (cd.readUInt32LE(pos) !== CD_RECORD_SIGNATURE) throw malformed(index, where, 'bad signature');
  const nameLength = cd.readUInt16LE(pos + 28);
  const extraLength = cd.readUInt16LE(pos + 30);
  const commentLength = cd.readUInt16LE(pos + 32);
  const recordSize = CD_RECORD_MIN_SIZE + nameLength + extraLength + commentLength;
  if (cd.length - pos < recordSize)
    throw malformed(index, where, 'record extends past the directory');
  const compressedSize = cd.readUInt32LE(pos + 20);
  const uncompressedSize = cd.readUInt32LE(pos + 24);
  const localHeaderOffset = cd.readUInt32LE(pos + 42);
  if (
    compressedSize === UINT32_MAX ||
    uncompressedSize === UINT32_MAX ||
    localHeaderOffset === UINT32_MAX
  ) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP64_UNSUPPORTED,
      `ZIP64 entry #${index + 1} not supported`,
    );
  }
  const nameBytes = Buffer.from(
    cd.subarray(pos + CD_RECORD_MIN_SIZE, pos + CD_RECORD_MIN_SIZE + nameLength),
  );
  const entry: ZipEntry = {
    nameBytes,
    name: nameBytes.toString('utf8'),
    method: cd.readUInt16LE(pos + 10),
    generalPurposeFlags: cd.readUInt16LE(pos + 8),
    crc32: cd.readUInt32LE(pos + 16),
    compressedSize,
    uncompressedSize,
    localHeaderOffset,
  };
  return { entry, next: pos + recordSize };
}

function checkSizes(entry: ZipEntry, limits: ZipLimits): void {
  if (entry.uncompressedSize > limits.maxEntryUncompressedBytes) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP_ENTRY_TOO_LARGE,
      `entry ${entry.name} declares ${entry.uncompressedSize} bytes (limit ${limits.maxEntryUncompressedBytes})`,
    );
  }
  if (
    entry.method !== 0 &&
    entry.uncompressedSize > limits.ratioCheckMinBytes &&
    entry.uncompressedSize > entry.compressedSize * limits.maxCompressionRatio
  ) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP_BOMB,
      `entry ${entry.name} inflates ${entry.compressedSize} bytes to ${entry.uncompressedSize}`,
    );
  }
}

/** Every entry the directory lists, in directory order (directories included). */
export function parseCentralDirectory(
  cd: Buffer,
  cdOffset: number,
  recordCount: number,
  limits: ZipLimits,
): ZipEntry[] {
  if (recordCount > limits.maxEntries) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP_TOO_MANY_ENTRIES,
      `ZIP lists ${recordCount} entries (limit ${limits.maxEntries})`,
    );
  }
  const entries: ZipEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  let pos = 0;
  for (let i = 0; i < recordCount; i++) {
    const { entry, next } = parseRecord(cd, pos, i, cdOffset);
    pos = next;
    const key = entry.nameBytes.toString('latin1');
    if (seen.has(key)) {
      throw new ApkFormatError(
        ApkIssueCode.ZIP_DUPLICATE_ENTRY,
        `Multiple ZIP entries with the same name: ${entry.name}`,
      );
    }
    seen.add(key);
    checkSizes(entry, limits);
    total += entry.uncompressedSize;
    if (total > limits.maxTotalUncompressedBytes) {
      throw new ApkFormatError(
        ApkIssueCode.ZIP_BOMB,
        `entries declare more than ${limits.maxTotalUncompressedBytes} uncompressed bytes`,
      );
    }
    entries.push(entry);
  }
  return entries;
}
