/**
 * Opens a ZIP archive over a `RandomAccessSource` without reading entry data: finds the
 * sections, reads and parses the central directory (bounded), and hands out entry readers that
 * check each Local File Header before streaming its data. See `find-zip-sections.ts`,
 * `read-central-directory.ts`, `local-file-record.ts` and `entry-data.ts` for the apksig code
 * each step follows.
 */
import { ApkFormatError, ApkIssueCode } from '../issues';
import type { RandomAccessSource } from '../random-access';
import { entryData } from './entry-data';
import { findZipSections } from './find-zip-sections';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './limits';
import { localHeaderSize, parseLocalRecord, readLocalRecord } from './local-file-record';
import { parseCentralDirectory } from './read-central-directory';
import type { ZipArchive, ZipEntry } from './types';

export async function openZip(
  source: RandomAccessSource,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<ZipArchive> {
  if (source.size > limits.maxArchiveBytes) {
    throw new ApkFormatError(
      ApkIssueCode.APK_TOO_LARGE,
      `input of ${source.size} bytes exceeds ${limits.maxArchiveBytes}`,
    );
  }
  const sections = await findZipSections(source);
  if (sections.cdSize > limits.maxCentralDirectoryBytes) {
    throw new ApkFormatError(
      ApkIssueCode.ZIP_CD_TOO_LARGE,
      `ZIP Central Directory too large: ${sections.cdSize} bytes`,
    );
  }
  const cd = await source.read(sections.cdOffset, sections.cdSize);
  const entries = parseCentralDirectory(cd, sections.cdOffset, sections.cdRecordCount, limits);

  async function* openEntry(entry: ZipEntry): AsyncGenerator<Buffer> {
    const record = await readLocalRecord(source, entry, sections.cdOffset);
    yield* entryData(source, entry, record);
  }

  async function readEntry(entry: ZipEntry, maxBytes: number): Promise<Buffer> {
    if (entry.uncompressedSize > maxBytes) {
      throw new ApkFormatError(
        ApkIssueCode.ZIP_ENTRY_TOO_LARGE,
        `entry ${entry.name} is ${entry.uncompressedSize} bytes (limit ${maxBytes})`,
      );
    }
    const parts: Buffer[] = [];
    for await (const chunk of openEntry(entry)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  return { source, sections, entries, openEntry, readEntry };
}

const HEADER_WINDOW_BYTES = 64 * 1024;

/**
 * Checks every entry's Local File Header against the central directory and refuses entries
 * whose data overlap (the "overlapping files" zip bomb). Reads only the headers, in file order,
 * through 64 KiB windows so that packed small entries cost one read per window.
 */
export async function checkEntryLayout(zip: ZipArchive): Promise<void> {
  const { cdOffset } = zip.sections;
  const sorted = [...zip.entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  const spans: Array<{ start: number; end: number; name: string }> = [];
  let window: Buffer = Buffer.alloc(0);
  let windowStart = 0;
  for (const entry of sorted) {
    const start = entry.localHeaderOffset;
    const size = localHeaderSize(entry);
    if (start < windowStart || start + size > windowStart + window.length) {
      const length = Math.min(Math.max(size, HEADER_WINDOW_BYTES), cdOffset - start);
      if (length < size) {
        await readLocalRecord(zip.source, entry, cdOffset); // throws the bounds error
      }
      window = await zip.source.read(start, length);
      windowStart = start;
    }
    const at = start - windowStart;
    const record = parseLocalRecord(window.subarray(at, at + size), entry, cdOffset);
    spans.push({ start, end: record.dataOffset + record.dataSize, name: entry.name });
  }
  for (let i = 1; i < spans.length; i++) {
    const prev = spans[i - 1];
    const cur = spans[i];
    if (prev !== undefined && cur !== undefined && cur.start < prev.end) {
      throw new ApkFormatError(
        ApkIssueCode.ZIP_BOMB,
        `ZIP entries ${prev.name} and ${cur.name} overlap`,
      );
    }
  }
}

/** The entry named exactly `name`, if any. */
export function findEntry(zip: ZipArchive, name: string): ZipEntry | undefined {
  return zip.entries.find((e) => e.name === name);
}
