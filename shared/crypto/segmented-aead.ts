/**
 * Segmented AEAD for APK bytes at rest (staging and GridFS): AES-256-GCM over fixed-size plaintext
 * segments, each with the nonce `prefix(7) || index(4, BE) || last(1)`, as in Tink's streaming AEAD
 * and age's STREAM. Each data key encrypts exactly one stream (a random 7-byte prefix besides), so
 * no nonce repeats. The counter stops reordering, the final-segment flag stops truncation and
 * extension, and any segment can be decrypted alone: a byte range needs only its own segments.
 *
 * The ciphertext is the concatenation of `segment || tag(16)`; the last segment may be shorter
 * (even empty), so every stream has at least one segment. The prefix is not secret; it is stored
 * beside the ciphertext (job payload, APK record).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../errors';

export const SEGMENT_SIZE = 64 * 1024;
export const TAG_SIZE = 16;
export const CIPHER_SEGMENT_SIZE = SEGMENT_SIZE + TAG_SIZE;
export const NONCE_PREFIX_SIZE = 7;
const MAX_SEGMENTS = 0xffffffff;

/** One segment of a stored blob failed its tag (STORED_DATA_UNAUTHENTIC). */
export class SegmentAuthError extends AppError {
  constructor(readonly segment: number) {
    super('STORED_DATA_UNAUTHENTIC', {
      message: `encrypted segment ${segment} failed authentication (tampered, truncated or wrong key)`,
    });
    this.name = 'SegmentAuthError';
  }
}

export function newNoncePrefix(): Buffer {
  return randomBytes(NONCE_PREFIX_SIZE);
}

export function segmentNonce(prefix: Buffer, index: number, last: boolean): Buffer {
  if (prefix.length !== NONCE_PREFIX_SIZE) throw new Error('nonce prefix must be 7 bytes');
  if (!Number.isInteger(index) || index < 0 || index > MAX_SEGMENTS) {
    throw new Error(`segment index out of range: ${index}`);
  }
  const nonce = Buffer.alloc(12);
  prefix.copy(nonce, 0);
  nonce.writeUInt32BE(index, NONCE_PREFIX_SIZE);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

export function encryptSegment(
  key: Buffer,
  prefix: Buffer,
  index: number,
  last: boolean,
  plaintext: Buffer,
): Buffer {
  if (plaintext.length > SEGMENT_SIZE || (!last && plaintext.length !== SEGMENT_SIZE)) {
    throw new Error('only the last segment may be shorter than SEGMENT_SIZE');
  }
  const cipher = createCipheriv('aes-256-gcm', key, segmentNonce(prefix, index, last));
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

export function decryptSegment(
  key: Buffer,
  prefix: Buffer,
  index: number,
  last: boolean,
  ciphertext: Buffer,
): Buffer {
  if (ciphertext.length < TAG_SIZE || ciphertext.length > CIPHER_SEGMENT_SIZE) {
    throw new SegmentAuthError(index);
  }
  const body = ciphertext.subarray(0, ciphertext.length - TAG_SIZE);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, segmentNonce(prefix, index, last));
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_SIZE));
    const plain = decipher.update(body);
    const rest = decipher.final(); // empty for GCM: no copy of every segment to join it
    return rest.length === 0 ? plain : Buffer.concat([plain, rest]);
  } catch {
    throw new SegmentAuthError(index);
  }
}

/** Number of segments of a plaintext of `size` bytes (at least one). */
export function segmentCount(plaintextSize: number): number {
  return Math.max(1, Math.ceil(plaintextSize / SEGMENT_SIZE));
}

export function ciphertextSize(plaintextSize: number): number {
  return plaintextSize + segmentCount(plaintextSize) * TAG_SIZE;
}

/** The plaintext size a ciphertext of `size` bytes holds; throws when no plaintext fits. */
export function plaintextSize(size: number): number {
  const segments = Math.ceil(size / CIPHER_SEGMENT_SIZE);
  const plain = size - Math.max(1, segments) * TAG_SIZE;
  if (plain < 0 || (segments > 1 && size - (segments - 1) * CIPHER_SEGMENT_SIZE < TAG_SIZE)) {
    throw new Error(`${size} bytes is not a valid segmented ciphertext length`);
  }
  return plain;
}

/** The segments covering plaintext bytes `start..end` (inclusive) and their ciphertext bytes. */
export function segmentsForRange(
  start: number,
  end: number,
  totalPlaintext: number,
): { first: number; last: number; cipherStart: number; cipherEnd: number } {
  const first = Math.floor(start / SEGMENT_SIZE);
  const last = Math.floor(end / SEGMENT_SIZE);
  const cipherEnd = Math.min((last + 1) * CIPHER_SEGMENT_SIZE, ciphertextSize(totalPlaintext));
  return { first, last, cipherStart: first * CIPHER_SEGMENT_SIZE, cipherEnd };
}

/**
 * Streaming encryption: plaintext in, ciphertext out (each segment's bytes, then its tag). A
 * segment is encrypted piece by piece as its plaintext came in, without joining the pieces into a
 * segment first or the output into one buffer: those copies were twice the APK's size in
 * short-lived buffers, which V8 frees only at its next full GC (an upload's API memory,
 * docs/benchmarks.md#upload-ingest).
 */
export class SegmentEncryptor extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private index = 0;

  constructor(
    private readonly key: Buffer,
    private readonly prefix: Buffer,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      // A segment is surely not the last one when more bytes follow it.
      while (this.pendingBytes > SEGMENT_SIZE) this.encryptNext(false);
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      this.encryptNext(true);
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  /** Encrypts up to one segment of pending plaintext, as the same bytes as encryptSegment. */
  private encryptNext(last: boolean): void {
    const nonce = segmentNonce(this.prefix, this.index++, last);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    let left = Math.min(SEGMENT_SIZE, this.pendingBytes);
    this.pendingBytes -= left;
    while (left > 0) {
      const piece = this.pending[0]!;
      const n = Math.min(left, piece.length);
      if (n > 0) this.push(cipher.update(piece.subarray(0, n)));
      if (n === piece.length) this.pending.shift();
      else this.pending[0] = piece.subarray(n);
      left -= n;
    }
    const rest = cipher.final(); // empty for GCM, pushed should it ever not be
    if (rest.length > 0) this.push(rest);
    this.push(cipher.getAuthTag());
  }
}

/**
 * Streaming decryption of segments `firstSegment…` of a stream. The segment at the end of the
 * input is authenticated as the last one only when `finalIsLast` (the input reaches the end of the
 * stored ciphertext); a stream cut short therefore fails instead of ending early.
 */
export class SegmentDecryptor extends Transform {
  private buffer: Buffer = Buffer.alloc(0);
  private index: number;
  private readonly finalIsLast: boolean;

  constructor(
    private readonly key: Buffer,
    private readonly prefix: Buffer,
    options: { firstSegment?: number; finalIsLast?: boolean } = {},
  ) {
    super();
    this.index = options.firstSegment ?? 0;
    this.finalIsLast = options.finalIsLast ?? true;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      // Keep at least one byte beyond a full segment: only then is that segment surely not last.
      while (this.buffer.length > CIPHER_SEGMENT_SIZE) {
        const segment = this.buffer.subarray(0, CIPHER_SEGMENT_SIZE);
        this.buffer = this.buffer.subarray(CIPHER_SEGMENT_SIZE);
        this.push(decryptSegment(this.key, this.prefix, this.index++, false, segment));
      }
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      if (this.buffer.length === 0 && !this.finalIsLast) {
        done();
        return;
      }
      this.push(decryptSegment(this.key, this.prefix, this.index++, this.finalIsLast, this.buffer));
      done();
    } catch (err) {
      done(err as Error);
    }
  }
}
