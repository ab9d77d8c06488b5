import type { RandomAccessSource } from '../random-access';

/** One record of the ZIP central directory, in the order the directory lists them. */
export interface ZipEntry {
  /** The name exactly as stored (Android decodes names as UTF-8 whatever flag bit 11 says). */
  readonly nameBytes: Buffer;
  readonly name: string;
  /** 0 = stored, 8 = deflated; anything else is refused when the entry is read. */
  readonly method: number;
  readonly generalPurposeFlags: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  /** Offset of the entry's local file header. */
  readonly localHeaderOffset: number;
}

/** Where the parts of the archive lie; the APK Signing Block sits just before `cdOffset`. */
export interface ZipSections {
  readonly cdOffset: number;
  readonly cdSize: number;
  readonly cdRecordCount: number;
  readonly eocdOffset: number;
  /** The whole End of Central Directory record, comment included. */
  readonly eocd: Buffer;
}

export interface ZipArchive {
  readonly source: RandomAccessSource;
  readonly sections: ZipSections;
  readonly entries: readonly ZipEntry[];
  /** Uncompressed data of one entry as a stream of chunks (bounded memory). */
  openEntry(entry: ZipEntry): AsyncIterable<Buffer>;
  /** Whole uncompressed data of one entry; refuses an entry larger than `maxBytes`. */
  readEntry(entry: ZipEntry, maxBytes: number): Promise<Buffer>;
}
