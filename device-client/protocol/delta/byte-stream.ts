/**
 * Reads an async stream of chunks as a byte stream: a fixed number of bytes (the headers), or
 * whatever is at hand up to a bound (the diff and extra bytes, passed on without a copy). The
 * applier (apply-patch.ts) holds at most one chunk of the patch at a time.
 */

export class ByteStream {
  private readonly chunks: AsyncIterator<Uint8Array>;
  private chunk: Uint8Array = new Uint8Array(0);
  private offset = 0;
  private ended = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.chunks = source[Symbol.asyncIterator]();
  }

  /** Whether a byte is left (waits for the next chunk when needed). */
  async hasMore(): Promise<boolean> {
    while (this.offset >= this.chunk.length) {
      if (this.ended) return false;
      const next = await this.chunks.next();
      if (next.done === true) {
        this.ended = true;
        return false;
      }
      this.chunk = next.value;
      this.offset = 0;
    }
    return true;
  }

  /** Up to `max` (≥ 1) bytes, or null at the end. The view is valid until the next call. */
  async upTo(max: number): Promise<Uint8Array | null> {
    if (!(await this.hasMore())) return null;
    const take = Math.min(max, this.chunk.length - this.offset);
    const piece = this.chunk.subarray(this.offset, this.offset + take);
    this.offset += take;
    return piece;
  }

  /** Exactly `size` bytes (a copy), or null when the stream ends first (`got` how many came). */
  async exactly(size: number): Promise<{ bytes: Uint8Array; got: number }> {
    const bytes = new Uint8Array(size);
    let got = 0;
    while (got < size) {
      const piece = await this.upTo(size - got);
      if (piece === null) break;
      bytes.set(piece, got);
      got += piece.length;
    }
    return { bytes, got };
  }

  /** Stops reading the source (its `return`), e.g. after a refusal. */
  async close(): Promise<void> {
    if (!this.ended) await this.chunks.return?.();
    this.ended = true;
  }
}
