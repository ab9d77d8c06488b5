/**
 * Decrypts a whole segmented-AEAD ciphertext (segmented-aead.ts) of a known plaintext size into
 * one Buffer, authenticating every segment as it arrives. It resolves only once every tag has
 * passed and the ciphertext had exactly the expected length: a caller never holds the plaintext of
 * a damaged, truncated or extended blob, not even of its intact segments.
 */
import { AppError } from '../errors';
import {
  CIPHER_SEGMENT_SIZE,
  SEGMENT_SIZE,
  ciphertextSize,
  decryptSegment,
  segmentCount,
} from './segmented-aead';

export async function decryptWhole(
  key: Buffer,
  prefix: Buffer,
  ciphertext: AsyncIterable<Buffer>,
  size: number,
): Promise<Buffer> {
  const out = Buffer.allocUnsafe(size);
  const count = segmentCount(size);
  const expected = ciphertextSize(size);
  const segment = Buffer.allocUnsafe(CIPHER_SEGMENT_SIZE);
  let fill = 0;
  let index = 0;
  let received = 0;
  /** The length of segment `index` in the ciphertext. */
  const lengthOf = (i: number) => Math.min(CIPHER_SEGMENT_SIZE, expected - i * CIPHER_SEGMENT_SIZE);
  for await (const piece of ciphertext) {
    received += piece.length;
    if (received > expected) break;
    let from = 0;
    while (from < piece.length) {
      const copied = piece.copy(segment, fill, from, from + (lengthOf(index) - fill));
      from += copied;
      fill += copied;
      if (fill < lengthOf(index)) continue;
      const plain = decryptSegment(
        key,
        prefix,
        index,
        index === count - 1,
        segment.subarray(0, fill),
      );
      plain.copy(out, index * SEGMENT_SIZE);
      index += 1;
      fill = 0;
    }
  }
  if (received !== expected || index !== count) {
    throw new AppError('BLOB_INCOMPLETE', {
      message: `ciphertext of ${received} bytes where ${expected} were expected`,
    });
  }
  return out;
}
