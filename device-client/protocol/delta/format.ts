/**
 * The ARDELTA1 patch format's framing (docs/delta-updates.md): the magic, the new file's size,
 * and the 24-byte record header (diffLen, extraLen, seek; 64-bit big-endian). Both the generator
 * (generate-patch.ts) and the applier (apply-patch.ts) build on it, and the Java core reads the
 * same bytes, pinned by vectors/delta-vectors.json. The zlib wrapping is the caller's: this layer
 * imports nothing, so the device client and the server share it.
 */

/** `ARDELTA1` in ASCII. */
export const DELTA_MAGIC = Uint8Array.of(0x41, 0x52, 0x44, 0x45, 0x4c, 0x54, 0x41, 0x31);

/** Magic and new size. */
export const HEADER_BYTES = 16;

/** diffLen, extraLen, seek. */
export const RECORD_HEADER_BYTES = 24;

/** The furthest `oldPos` may wander from 0 (either way) before the patch is refused. */
export const OLD_POS_LIMIT = 2n ** 62n;

/**
 * Why a patch was refused: one word, as the shared vectors name it. `plan` and `size` are
 * ARDELTA2's own (format2.ts): a bad range list, and a final file of another size than announced.
 */
export type DeltaErrorCode =
  'magic' | 'truncated' | 'trailing' | 'overrun' | 'seek' | 'corrupt' | 'plan' | 'size';

export class DeltaPatchError extends Error {
  readonly code: DeltaErrorCode;

  constructor(code: DeltaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeltaPatchError';
    this.code = code;
  }
}

export interface RecordHeader {
  readonly diffLen: bigint;
  readonly extraLen: bigint;
  readonly seek: bigint;
}

/** The 16 bytes that open the inflated patch. */
export function encodeHeader(newSize: number): Uint8Array {
  const bytes = new Uint8Array(HEADER_BYTES);
  bytes.set(DELTA_MAGIC, 0);
  new DataView(bytes.buffer).setBigUint64(8, BigInt(newSize));
  return bytes;
}

/** The new size the header announces; refuses a wrong magic. */
export function decodeHeader(bytes: Uint8Array): bigint {
  for (let i = 0; i < DELTA_MAGIC.length; i++) {
    if (bytes[i] !== DELTA_MAGIC[i]) throw new DeltaPatchError('magic', 'not an ARDELTA1 patch');
  }
  return new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES).getBigUint64(8);
}

export function encodeRecordHeader(diffLen: number, extraLen: number, seek: number): Uint8Array {
  const bytes = new Uint8Array(RECORD_HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, BigInt(diffLen));
  view.setBigUint64(8, BigInt(extraLen));
  view.setBigInt64(16, BigInt(seek));
  return bytes;
}

export function decodeRecordHeader(bytes: Uint8Array): RecordHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, RECORD_HEADER_BYTES);
  return {
    diffLen: view.getBigUint64(0),
    extraLen: view.getBigUint64(8),
    seek: view.getBigInt64(16),
  };
}
