/**
 * A read-only, random-access view of an APK's bytes. The verifier never holds the whole file:
 * it asks for the ranges it needs (end of central directory, central directory, signing block,
 * entry data) and streams the rest.
 */
export interface RandomAccessSource {
  /** Total size in bytes. */
  readonly size: number;
  /** Exactly `length` bytes from `offset`; rejects when the range is outside the source. */
  read(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}
