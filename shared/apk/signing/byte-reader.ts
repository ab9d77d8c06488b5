/**
 * Bounded little-endian reader for the length-prefixed structures of the APK Signing Block
 * (apksig `ApkSigningBlockUtils.getLengthPrefixedSlice` / `readLengthPrefixedByteArray`).
 * Running past the end throws `MalformedBlockError`, the equivalent of apksig's
 * `ApkFormatException | BufferUnderflowException`.
 */
export class MalformedBlockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedBlockError';
  }
}

export class ByteReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  hasRemaining(): boolean {
    return this.pos < this.buf.length;
  }

  private need(n: number, what: string): void {
    if (n < 0 || this.remaining < n) {
      throw new MalformedBlockError(`${what}: need ${n} bytes, ${this.remaining} remaining`);
    }
  }

  uint32(): number {
    this.need(4, 'uint32');
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  int32(): number {
    this.need(4, 'int32');
    const v = this.buf.readInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  /** A uint64 as a number (exact below 2^53; larger values are only compared against limits). */
  uint64(): number {
    this.need(8, 'uint64');
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return hi * 2 ** 32 + lo;
  }

  bytes(n: number): Buffer {
    this.need(n, 'bytes');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  rest(): Buffer {
    return this.bytes(this.remaining);
  }

  /** A uint32 length followed by that many bytes. */
  lengthPrefixed(): Buffer {
    if (this.remaining < 4) {
      throw new MalformedBlockError(
        `Remaining buffer too short to contain length of length-prefixed field`,
      );
    }
    const len = this.buf.readInt32LE(this.pos);
    if (len < 0) throw new MalformedBlockError('Negative length');
    if (len > this.remaining - 4) {
      throw new MalformedBlockError(`Length-prefixed field longer than remaining buffer: ${len}`);
    }
    this.pos += 4;
    return this.bytes(len);
  }

  lengthPrefixedReader(): ByteReader {
    return new ByteReader(this.lengthPrefixed());
  }
}
