/** Hard limits applied while reading a ZIP; anything beyond them is refused with a typed error. */
export interface ZipLimits {
  /** Largest input accepted (a non-ZIP64 archive cannot exceed 4 GiB). */
  readonly maxArchiveBytes: number;
  /** Most central-directory records accepted (a non-ZIP64 archive cannot list more than 65535). */
  readonly maxEntries: number;
  /** Largest central directory read into memory. */
  readonly maxCentralDirectoryBytes: number;
  /** Largest declared uncompressed size of one entry. */
  readonly maxEntryUncompressedBytes: number;
  /** Largest sum of declared uncompressed sizes. */
  readonly maxTotalUncompressedBytes: number;
  /** Largest uncompressed/compressed ratio of a deflated entry above `ratioCheckMinBytes`. */
  readonly maxCompressionRatio: number;
  readonly ratioCheckMinBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = Object.freeze({
  maxArchiveBytes: 0xffffffff,
  maxEntries: 65_535,
  maxCentralDirectoryBytes: 64 * 1024 * 1024,
  maxEntryUncompressedBytes: 2 * 1024 * 1024 * 1024,
  maxTotalUncompressedBytes: 4 * 1024 * 1024 * 1024,
  maxCompressionRatio: 200,
  ratioCheckMinBytes: 1024 * 1024,
});

/** Size of the reads used when streaming entry data or whole-file digests. */
export const READ_CHUNK_BYTES = 1024 * 1024;
