/** Reads and parses AndroidManifest.xml from an opened APK (apksig `getAndroidManifestFromApk`). */
import { ApkFormatError, ApkIssueCode } from '../issues';
import { findEntry } from '../zip/open-zip';
import type { ZipArchive } from '../zip/types';
import { readManifest, type ManifestInfo } from './read-manifest';

export const MANIFEST_ENTRY_NAME = 'AndroidManifest.xml';
/** Largest manifest read into memory. */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;

export async function manifestFromZip(zip: ZipArchive): Promise<ManifestInfo> {
  const entry = findEntry(zip, MANIFEST_ENTRY_NAME);
  if (entry === undefined) {
    throw new ApkFormatError(ApkIssueCode.MANIFEST_MISSING, 'Missing AndroidManifest.xml');
  }
  return readManifest(await zip.readEntry(entry, MAX_MANIFEST_BYTES));
}
