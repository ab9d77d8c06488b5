/**
 * The entries of an APK as ARDELTA2's generator needs them: name, method, CRC, sizes, and where
 * each entry's data lies (after its local header's name and extra fields). Read with shared/apk's
 * ZIP code (apksig's rules: the directory found after the signing block, every local header
 * checked against it, no two entries' data overlapping). A ZIP64 or malformed archive gives null:
 * no ARDELTA2 for the pair, ARDELTA1 still serves it.
 */
import { ApkFormatError } from '../apk/issues';
import { bufferSource } from '../apk/sources';
import { checkEntryLayout, openZip } from '../apk/zip';
import { readLocalRecord } from '../apk/zip/local-file-record';

export interface ApkZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated (anything else is read as deflated, as Android does). */
  readonly method: number;
  readonly crc32: number;
  readonly localHeaderOffset: number;
  /** Where the entry's (compressed) data starts. */
  readonly dataOffset: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
}

/** The entries in central-directory order, or null when the archive is ZIP64 or malformed. */
export async function readApkEntries(apk: Uint8Array): Promise<ApkZipEntry[] | null> {
  const source = bufferSource(Buffer.from(apk.buffer, apk.byteOffset, apk.length));
  try {
    const zip = await openZip(source);
    await checkEntryLayout(zip);
    const entries: ApkZipEntry[] = [];
    for (const entry of zip.entries) {
      const record = await readLocalRecord(source, entry, zip.sections.cdOffset);
      entries.push({
        name: entry.name,
        method: entry.method,
        crc32: entry.crc32,
        localHeaderOffset: entry.localHeaderOffset,
        dataOffset: record.dataOffset,
        compressedSize: entry.compressedSize,
        uncompressedSize: entry.uncompressedSize,
      });
    }
    return entries;
  } catch (err) {
    if (err instanceof ApkFormatError) return null;
    throw err;
  }
}
