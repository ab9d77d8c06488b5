/**
 * Reads and checks an entry's Local File Header against its central-directory record.
 * Port of AOSP apksig `internal/zip/LocalFileRecord.getRecord`: the name must match, the
 * data-descriptor flag must agree, CRC-32 and sizes must agree unless a data descriptor is used,
 * and the data must end before the central directory. Like Android, the compression method is
 * taken from the central directory (the local one is ignored) and any method other than STORED
 * is treated as DEFLATED.
 */
import { ApkFormatError, ApkIssueCode } from '../issues';
import type { RandomAccessSource } from '../random-access';
import type { ZipEntry } from './types';

const LFH_SIGNATURE = 0x04034b50;
const LFH_SIZE = 30;
const GP_FLAG_DATA_DESCRIPTOR = 0x08;

export interface LocalRecord {
  /** Where the entry's (possibly compressed) data starts in the file. */
  readonly dataOffset: number;
  /** Bytes of data stored in the file (compressed size, or uncompressed size when stored). */
  readonly dataSize: number;
  readonly compressed: boolean;
}

function mismatch(entry: ZipEntry, what: string): ApkFormatError {
  return new ApkFormatError(
    ApkIssueCode.ZIP_LFH_MISMATCH,
    `${what} mismatch between Local File Header and Central Directory for entry ${entry.name}`,
  );
}

/** Bytes of the Local File Header (with the name as the CD gives it) to read for `entry`. */
export function localHeaderSize(entry: ZipEntry): number {
  return LFH_SIZE + entry.nameBytes.length;
}

export async function readLocalRecord(
  source: RandomAccessSource,
  entry: ZipEntry,
  cdOffset: number,
): Promise<LocalRecord> {
  checkHeaderBounds(entry, cdOffset);
  return parseLocalRecord(
    await source.read(entry.localHeaderOffset, localHeaderSize(entry)),
    entry,
    cdOffset,
  );
}

function checkHeaderBounds(entry: ZipEntry, cdOffset: number): void {
  if (entry.localHeaderOffset + localHeaderSize(entry) > cdOffset) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP_MALFORMED_ENTRY_DATA,
      `Local File Header of ${entry.name} extends beyond start of Central Directory`,
    );
  }
}

/** Checks a Local File Header read into `header` (at least `localHeaderSize(entry)` bytes). */
export function parseLocalRecord(header: Buffer, entry: ZipEntry, cdOffset: number): LocalRecord {
  checkHeaderBounds(entry, cdOffset);
  if (header.readUInt32LE(0) !== LFH_SIGNATURE) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP_MALFORMED_ENTRY_DATA,
      `Not a Local File Header record for entry ${entry.name}`,
    );
  }
  const flags = header.readUInt16LE(6);
  const dataDescriptor = (flags & GP_FLAG_DATA_DESCRIPTOR) !== 0;
  if (dataDescriptor !== ((entry.generalPurposeFlags & GP_FLAG_DATA_DESCRIPTOR) !== 0)) {
    throw mismatch(entry, 'Data Descriptor presence');
  }
  const nameLength = header.readUInt16LE(26);
  if (nameLength > entry.nameBytes.length) throw mismatch(entry, 'Name length');
  if (!header.subarray(LFH_SIZE, LFH_SIZE + nameLength).equals(entry.nameBytes)) {
    throw mismatch(entry, 'Name');
  }
  const extraLength = header.readUInt16LE(28);
  const dataOffset = entry.localHeaderOffset + LFH_SIZE + nameLength + extraLength;
  const compressed = entry.method !== 0;
  const dataSize = compressed ? entry.compressedSize : entry.uncompressedSize;
  if (dataOffset + dataSize > cdOffset) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP_MALFORMED_ENTRY_DATA,
      `Local File Header data of ${entry.name} overlaps with Central Directory`,
    );
  }
  if (!dataDescriptor) {
    if (header.readUInt32LE(14) !== entry.crc32) throw mismatch(entry, 'CRC-32');
    if (header.readUInt32LE(18) !== entry.compressedSize) throw mismatch(entry, 'Compressed size');
    if (header.readUInt32LE(22) !== entry.uncompressedSize)
      throw mismatch(entry, 'Uncompressed size');
  }
  return { dataOffset, dataSize, compressed };
}
