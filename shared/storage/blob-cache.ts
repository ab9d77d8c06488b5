/**
 * A local disk cache of APK ciphertext in front of the blob store, for downloads. A fleet that
 * learns of a new version downloads the same APK thousands of times; from GridFS each download is
 * a read of the chunks collection (on FerretDB v1 a scan of it, and nothing is sent before the
 * whole result is built). Through the cache the first download of a blob copies its ciphertext
 * once into a file (`<dir>/<blob id>`), and every download after that, from any API process
 * sharing the directory, reads that file.
 *
 * What holds:
 * - The file is the ciphertext as stored: still encrypted (AES-256-GCM per segment, whose tags
 *   every download checks), so the cache holds no plaintext and a damaged file fails the download
 *   like damaged chunks would.
 * - Blobs never change once an APK points at them, so a cached file is never stale.
 * - A file appears under its final name only when complete (written as a hidden `.part`, length
 *   checked, then renamed); a failed copy (full disk, MongoDB gone) leaves nothing behind, and the
 *   download is served from GridFS instead.
 * - Concurrent misses in one process share one copy. The cache stays under `maxBytes`: after each
 *   copy, the least recently read files are removed. A reader that opened a file before it is
 *   removed reads it to the end (Unix keeps it until closed).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../log';
import { isUploadId } from '../upload-id';
import type { BlobStore } from './blob-store';
import { AppError } from '../errors';

export interface BlobCacheOptions {
  readonly dir: string;
  /** The cache's size bound; a blob larger than this is never cached. */
  readonly maxBytes: number;
  readonly log: Logger;
}

/** Copies left behind by a process that died while writing one are removed after this. */
/** Blob ids are upload ids (random, or ObjectIds): anything else never names a file. */
const isBlobId = isUploadId;

const STALE_PART_MS = 60 * 60_000;
const PART_SUFFIX = '.part';

export function cachedBlobStore(inner: BlobStore, o: BlobCacheOptions): BlobStore {
  const copying = new Map<string, Promise<boolean>>();
  /** Copies being dropped (damaged): a read waits for the drop, so it never opens the file. */
  const discarding = new Map<string, Promise<void>>();
  const fileOf = (id: string) => path.join(o.dir, id);

  /** Copies the blob into the cache: true once its file is there, false when it is not cached. */
  async function copy(id: string): Promise<boolean> {
    const size = await inner.size(id);
    if (size === null || size > o.maxBytes) return false;
    await mkdir(o.dir, { recursive: true });
    const part = path.join(o.dir, `.${id}.${randomBytes(6).toString('hex')}${PART_SUFFIX}`);
    try {
      await pipeline(inner.openRange(id, 0, size), createWriteStream(part, { flags: 'wx' }));
      const written = (await stat(part)).size;
      if (written !== size) {
        throw new AppError('BLOB_INCOMPLETE', { message: `copied ${written} of ${size} bytes` });
      }
      await rename(part, fileOf(id));
      return true;
    } finally {
      await rm(part, { force: true });
    }
  }

  /** One copy per blob at a time; the cache is trimmed before the copy counts as done. */
  function ensureCopied(id: string): Promise<boolean> {
    let pending = copying.get(id);
    if (!pending) {
      pending = (async () => {
        const copied = await copy(id).catch((err: Error) => {
          o.log.warn({ err: err.message, blobId: id }, 'download cache: copy failed');
          return false;
        });
        await evict(o.dir, o.maxBytes).catch((err: Error) =>
          o.log.warn({ err: err.message }, 'download cache: eviction failed'),
        );
        return copied;
      })().finally(() => copying.delete(id));
      copying.set(id, pending);
    }
    return pending;
  }

  /** The cached file's bytes `start..end` (end exclusive), or null when it is not cached. */
  async function fromFile(id: string, start: number, end: number): Promise<Readable | null> {
    await discarding.get(id);
    const handle = await open(fileOf(id), 'r').catch(() => null);
    if (!handle) return null;
    // Read order is the eviction order: mark the file as just used (its mtime).
    const now = new Date();
    utimes(fileOf(id), now, now).catch(() => undefined);
    return handle.createReadStream({ start, end: end - 1 });
  }

  async function* range(id: string, start: number, end: number): AsyncGenerator<Buffer> {
    const cached =
      (await fromFile(id, start, end)) ??
      ((await ensureCopied(id)) ? await fromFile(id, start, end) : null);
    yield* (cached ?? inner.openRange(id, start, end)) as AsyncIterable<Buffer>;
  }

  return {
    put: (id, ciphertext, metadata) => inner.put(id, ciphertext, metadata),
    openRange: (id, start, end) =>
      isBlobId(id)
        ? Readable.from(range(id, start, end), { objectMode: false })
        : inner.openRange(id, start, end),
    size: (id) => inner.size(id),
    async delete(id) {
      await inner.delete(id);
      await rm(fileOf(id), { force: true });
    },
    listBefore: (before) => inner.listBefore(before),
    // Marked at once (before the first await), so a read asked right after waits for it.
    discardCopy(id) {
      if (!isBlobId(id)) return Promise.resolve();
      let pending = discarding.get(id);
      if (!pending) {
        pending = rm(fileOf(id), { force: true }).finally(() => discarding.delete(id));
        discarding.set(id, pending);
      }
      return pending;
    },
  };
}

/** Removes the least recently read files until the cache fits, and stale partial copies. */
async function evict(dir: string, maxBytes: number): Promise<void> {
  const now = Date.now();
  const files: Array<{ file: string; size: number; used: number }> = [];
  // No directory yet: nothing was ever copied (e.g. only blobs larger than the bound).
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const file = path.join(dir, name);
    const s = await stat(file).catch(() => null);
    if (!s?.isFile()) continue;
    if (name.endsWith(PART_SUFFIX)) {
      if (now - s.mtimeMs > STALE_PART_MS) await rm(file, { force: true });
      continue;
    }
    files.push({ file, size: s.size, used: s.mtimeMs });
  }
  let total = files.reduce((sum, f) => sum + f.size, 0);
  for (const f of files.sort((a, b) => a.used - b.used)) {
    if (total <= maxBytes) break;
    await rm(f.file, { force: true });
    total -= f.size;
  }
}
