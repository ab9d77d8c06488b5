import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import {
  CIPHER_SEGMENT_SIZE,
  SEGMENT_SIZE,
  SegmentDecryptor,
  SegmentEncryptor,
  ciphertextSize,
  newNoncePrefix,
  plaintextSize,
  segmentsForRange,
} from '../../../../shared/crypto/segmented-aead';

const key = Buffer.alloc(32, 3);
const prefix = Buffer.from('0102030405060a', 'hex');

async function encrypt(plain: Buffer, chunk = 1000): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let i = 0; i < plain.length; i += chunk) parts.push(plain.subarray(i, i + chunk));
  return buffer(Readable.from(parts).pipe(new SegmentEncryptor(key, prefix)));
}

async function decrypt(
  cipher: Buffer,
  options?: ConstructorParameters<typeof SegmentDecryptor>[2],
) {
  return buffer(Readable.from([cipher]).pipe(new SegmentDecryptor(key, prefix, options)));
}

describe('segmented AES-256-GCM', () => {
  test.each([0, 1, SEGMENT_SIZE - 1, SEGMENT_SIZE, SEGMENT_SIZE + 1, 3 * SEGMENT_SIZE, 200_000])(
    'round-trips %i bytes, with the predicted ciphertext size',
    async (size) => {
      const plain = randomBytes(size);
      const cipher = await encrypt(plain, 7_777);
      expect(cipher.length).toBe(ciphertextSize(size));
      expect(plaintextSize(cipher.length)).toBe(size);
      expect((await decrypt(cipher)).equals(plain)).toBe(true);
    },
  );

  test('chunking of the input does not change the output', async () => {
    const plain = randomBytes(150_000);
    expect((await encrypt(plain, 1)).equals(await encrypt(plain, 65_536 * 3))).toBe(true);
  });

  test('the ciphertext contains no 64-byte window of the plaintext', async () => {
    const plain = Buffer.alloc(3 * SEGMENT_SIZE, 'A'); // worst case: highly repetitive
    const cipher = await encrypt(plain);
    expect(cipher.includes(plain.subarray(0, 64))).toBe(false);
  });

  test('a flipped byte in any segment fails instead of returning data', async () => {
    const cipher = await encrypt(randomBytes(2 * SEGMENT_SIZE + 10));
    for (const at of [0, CIPHER_SEGMENT_SIZE + 5, cipher.length - 1]) {
      const tampered = Buffer.from(cipher);
      tampered[at]! ^= 0x01;
      await expect(decrypt(tampered)).rejects.toThrow(/failed authentication/);
    }
  });

  test('truncation at a segment boundary is detected (final-segment flag)', async () => {
    const cipher = await encrypt(randomBytes(3 * SEGMENT_SIZE + 1));
    await expect(decrypt(cipher.subarray(0, 2 * CIPHER_SEGMENT_SIZE))).rejects.toThrow(/segment 1/);
    await expect(decrypt(Buffer.alloc(0))).rejects.toThrow(/segment 0/);
  });

  test('reordered segments are detected (counter nonces)', async () => {
    const cipher = await encrypt(randomBytes(3 * SEGMENT_SIZE + 1));
    const a = cipher.subarray(0, CIPHER_SEGMENT_SIZE);
    const b = cipher.subarray(CIPHER_SEGMENT_SIZE, 2 * CIPHER_SEGMENT_SIZE);
    const swapped = Buffer.concat([b, a, cipher.subarray(2 * CIPHER_SEGMENT_SIZE)]);
    await expect(decrypt(swapped)).rejects.toThrow(/failed authentication/);
  });

  test('a wrong key or nonce prefix fails', async () => {
    const cipher = await encrypt(randomBytes(100));
    const wrong = new SegmentDecryptor(Buffer.alloc(32, 4), prefix);
    await expect(buffer(Readable.from([cipher]).pipe(wrong))).rejects.toThrow();
    const other = new SegmentDecryptor(key, newNoncePrefix());
    await expect(buffer(Readable.from([cipher]).pipe(other))).rejects.toThrow();
  });

  test('any segment range decrypts alone', async () => {
    const plain = randomBytes(5 * SEGMENT_SIZE + 123);
    const cipher = await encrypt(plain);
    const start = SEGMENT_SIZE + 17;
    const end = 3 * SEGMENT_SIZE + 9;
    const range = segmentsForRange(start, end, plain.length);
    expect(range).toMatchObject({ first: 1, last: 3 });
    const middle = await decrypt(cipher.subarray(range.cipherStart, range.cipherEnd), {
      firstSegment: range.first,
      finalIsLast: false,
    });
    const offset = start - range.first * SEGMENT_SIZE;
    expect(
      middle.subarray(offset, offset + end - start + 1).equals(plain.subarray(start, end + 1)),
    ).toBe(true);
    // The tail range includes the final segment and authenticates it as last.
    const tail = segmentsForRange(plain.length - 5, plain.length - 1, plain.length);
    const tailPlain = await decrypt(cipher.subarray(tail.cipherStart, tail.cipherEnd), {
      firstSegment: tail.first,
      finalIsLast: true,
    });
    expect(tailPlain.subarray(-5).equals(plain.subarray(-5))).toBe(true);
  });

  test('impossible ciphertext lengths are refused', () => {
    expect(() => plaintextSize(5)).toThrow();
    expect(() => plaintextSize(CIPHER_SEGMENT_SIZE + 3)).toThrow();
    expect(plaintextSize(16)).toBe(0);
  });
});
