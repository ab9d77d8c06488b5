/**
 * A random-access view of the plaintext of a segmented-AEAD ciphertext (see
 * shared/crypto/segmented-aead.ts). Reads fetch and authenticate only the segments they cover; a
 * small cache of decrypted segments serves the verifier's repeated small reads (EOCD, central
 * directory, signing block) without re-reading them.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RandomAccessSource } from '../apk/random-access';
import {
  CIPHER_SEGMENT_SIZE,
  SEGMENT_SIZE,
  decryptSegment,
  plaintextSize,
} from '../crypto/segmented-aead';
import { AppError } from '../errors';

/** Where ciphertext bytes come from: a staging file, a GridFS file. */
export interface CiphertextReader {
  readonly size: number;
  read(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

const CACHE_SEGMENTS = 32;

export function decryptingSource(
  cipher: CiphertextReader,
  key: Buffer,
  prefix: Buffer,
): RandomAccessSource {
  const size = plaintextSize(cipher.size);
  const lastSegment = Math.max(0, Math.ceil(size / SEGMENT_SIZE) - 1);
  const cache = new Map<number, Buffer>();

  async function segments(first: number, last: number): Promise<Buffer[]> {
    const out: Buffer[] = [];
    let missingFrom = -1;
    const flush = async (upTo: number) => {
      if (missingFrom < 0) return;
      const start = missingFrom * CIPHER_SEGMENT_SIZE;
      const end = Math.min((upTo + 1) * CIPHER_SEGMENT_SIZE, cipher.size);
      const bytes = await cipher.read(start, end - start);
      for (let i = missingFrom; i <= upTo; i++) {
        const slice = bytes.subarray(
          (i - missingFrom) * CIPHER_SEGMENT_SIZE,
          (i - missingFrom + 1) * CIPHER_SEGMENT_SIZE,
        );
        const plain = decryptSegment(key, prefix, i, i === lastSegment, slice);
        cache.set(i, plain);
        out[i - first] = plain;
      }
      missingFrom = -1;
    };
    for (let i = first; i <= last; i++) {
      const hit = cache.get(i);
      if (hit) {
        await flush(i - 1);
        out[i - first] = hit;
      } else if (missingFrom < 0) missingFrom = i;
    }
    await flush(last);
    while (cache.size > CACHE_SEGMENTS) cache.delete(cache.keys().next().value!);
    return out;
  }

  return {
    size,
    async read(offset, length) {
      if (
        !Number.isInteger(offset) ||
        !Number.isInteger(length) ||
        offset < 0 ||
        length < 0 ||
        offset + length > size
      ) {
        throw new RangeError(`read ${offset}+${length} outside 0..${size}`);
      }
      if (length === 0) return Buffer.alloc(0);
      const first = Math.floor(offset / SEGMENT_SIZE);
      const last = Math.floor((offset + length - 1) / SEGMENT_SIZE);
      const parts = await segments(first, last);
      const joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      const from = offset - first * SEGMENT_SIZE;
      return joined.subarray(from, from + length);
    },
    close: () => cipher.close(),
  };
}

export async function fileCiphertext(path: string): Promise<CiphertextReader> {
  const handle = await open(path, 'r');
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const buffer = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(buffer, done, length - done, offset + done);
        if (bytesRead === 0) {
          throw new AppError('BLOB_INCOMPLETE', { message: `unexpected end of ${path}` });
        }
        done += bytesRead;
      }
      return buffer;
    },
    close: () => handle.close(),
  };
}

/**
 * Ciphertext read straight from the blob store, one ranged read per request: no local copy, for
 * when the local disk cannot hold one. Slower where each ranged read scans the chunks
 * (blob-cache.ts), so it is the fallback, not the rule (see localCiphertextCopy).
 */
export function blobCiphertext(
  blobs: { openRange(id: string, start: number, end: number): NodeJS.ReadableStream },
  id: string,
  size: number,
): CiphertextReader {
  return {
    size,
    async read(offset, length) {
      const chunks: Buffer[] = [];
      for await (const chunk of blobs.openRange(id, offset, offset + length)) {
        chunks.push(chunk as Buffer);
      }
      const bytes = Buffer.concat(chunks);
      if (bytes.length !== length) {
        throw new AppError('BLOB_INCOMPLETE', {
          message: `blob ${id}: read ${bytes.length} of ${length} bytes at ${offset}`,
        });
      }
      return bytes;
    },
    close: () => Promise.resolve(),
  };
}

/**
 * Wraps a reader to remember the first I/O failure. The verifier turns any read error into "not a
 * valid APK"; the caller checks `failure()` afterwards so that an outage is retried instead.
 */
export function watchedCiphertext(reader: CiphertextReader): CiphertextReader & {
  failure(): unknown;
} {
  let failure: unknown;
  return {
    size: reader.size,
    async read(offset, length) {
      try {
        return await reader.read(offset, length);
      } catch (err) {
        failure ??= err;
        throw err;
      }
    },
    close: () => reader.close(),
    failure: () => failure,
  };
}

/**
 * Copies a stored blob's ciphertext into a local temporary file with ONE sequential read, for a
 * verifier that needs cheap random access. The copy is ciphertext (nothing in clear at rest) and
 * is removed by `cleanup`. One query matters where the server scans the chunks collection for
 * every query (blob-cache.ts): many ranged reads of a large blob cost time quadratic in its size.
 */
export async function localCiphertextCopy(
  blobs: {
    openRange(id: string, start: number, end: number): NodeJS.ReadableStream;
    readAll?(id: string): AsyncIterable<Buffer>;
  },
  id: string,
  size: number,
  tmpDir: string,
): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpDir, 'apkrelay-ingest-'));
  const file = path.join(dir, `${id}.seg`);
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    // A few chunks at a time where the store can (blob-store.ts readAll), else its range stream.
    const source = blobs.readAll ? Readable.from(blobs.readAll(id)) : blobs.openRange(id, 0, size);
    await pipeline(source, createWriteStream(file, { mode: 0o600 }));
    const written = (await stat(file)).size;
    if (written !== size) {
      throw new AppError('BLOB_INCOMPLETE', {
        message: `blob ${id}: copied ${written} of ${size} bytes`,
      });
    }
    return { path: file, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
