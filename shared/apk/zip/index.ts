export type { ZipArchive, ZipEntry, ZipSections } from './types';
export { openZip, checkEntryLayout, findEntry } from './open-zip';
export { DEFAULT_ZIP_LIMITS, READ_CHUNK_BYTES, type ZipLimits } from './limits';
export { readRange } from './entry-data';
