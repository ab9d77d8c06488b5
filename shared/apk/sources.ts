/**
 * Adapters that present bytes as a `RandomAccessSource`: an open file (reads through a
 * `FileHandle`, nothing is loaded up front) and an in-memory buffer (for tests and small inputs).
 */
import { open } from 'node:fs/promises';
import { ApkFormatError, ApkIssueCode } from './issues';
import type { RandomAccessSource } from './random-access';

function checkRange(size: number, offset: number, length: number): void {
  if (
    !Number.isSafeInteger(offset) ||
    !Number.isSafeInteger(length) ||
    offset < 0 ||
    length < 0 ||
    offset + length > size
  ) {
    throw new ApkFormatError(
      ApkIssueCode.APK_TRUNCATED,
      `read of ${length} bytes at ${offset} is outside the ${size}-byte input`,
    );
  }
}

export function bufferSource(buf: Buffer): RandomAccessSource {
  return {
    size: buf.length,
    read(offset: number, length: number): Promise<Buffer> {
      try {
        checkRange(buf.length, offset, length);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      return Promise.resolve(buf.subarray(offset, offset + length));
    },
    close: () => Promise.resolve(),
  };
}

/** Opens `path` read-only; the caller must `close()` the source. */
export async function openFileSource(path: string): Promise<RandomAccessSource> {
  const handle = await open(path, 'r');
  let size: number;
  try {
    size = (await handle.stat()).size;
  } catch (err) {
    await handle.close();
    throw err;
  }
  let closed = false;
  return {
    size,
    async read(offset: number, length: number): Promise<Buffer> {
      checkRange(size, offset, length);
      const out = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(out, done, length - done, offset + done);
        if (bytesRead === 0) {
          throw new ApkFormatError(ApkIssueCode.APK_TRUNCATED, `file ended at ${offset + done}`);
        }
        done += bytesRead;
      }
      return out;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}
