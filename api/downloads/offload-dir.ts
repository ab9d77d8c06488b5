/**
 * DOWNLOAD_OFFLOAD=nginx: the directory nginx sends download bytes from (docs/downloads.md,
 * "nginx offload"). It holds the plaintext of the APKs devices are being served, one file per
 * blob (`<blob id>.apk`), and it must be RAM-backed (tmpfs): it is the one place where APK
 * plaintext exists in a file, so that it never reaches a disk. What holds:
 * - A file appears under its final name only when complete and every segment's tag has passed:
 *   it is decrypted into a hidden `.part` file, its length checked, then renamed. A damaged
 *   stored segment leaves no file (the download fails as it would without offload).
 * - Concurrent first requests in one process share one write; API processes sharing the directory
 *   may each write it once (rename makes the last one win, with the same bytes).
 * - After each new file, files of APKs that are no longer served (neither an app's current APK
 *   nor a rollout's) are removed once no process has handed them out for a minute, and partial
 *   files left by a crash after an hour. nginx keeps sending a removed file to the clients that
 *   already opened it. The minute closes a race: a download authorised while its APK was still
 *   current gets its `X-Accel-Redirect` after another request made a newer APK current and wrote
 *   its file; without it that file could be gone before nginx opens it (a 404). Handing a file out
 *   sets its modification time (at most every 15 s), which every API process's prune reads.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ApkDoc } from '../../shared/catalog/types';
import { unwrapDataKey } from '../../shared/crypto/data-keys';
import type { KeyRing } from '../../shared/crypto/keys';
import { SegmentDecryptor, ciphertextSize } from '../../shared/crypto/segmented-aead';
import { AppError } from '../../shared/errors';
import type { Logger } from '../../shared/log';
import type { BlobStore } from '../../shared/storage/blob-store';
import { isUploadId } from '../../shared/upload-id';

export interface OffloadDir {
  /** The file name (in the directory) holding `apk`'s plaintext, written first if need be. */
  fileFor(apk: ApkDoc): Promise<string>;
}

export interface OffloadDirOptions {
  readonly dir: string;
  readonly blobs: BlobStore;
  readonly keys: KeyRing;
  readonly log: Logger;
  /** Whether a blob is still served to devices (some app's current or rollout APK). */
  readonly isServed: (blobId: string) => Promise<boolean>;
}

const PART_SUFFIX = '.part';
const STALE_PART_MS = 60 * 60_000;
/** How long after its last hand-out an unserved APK's file is kept (see the top). */
const HANDED_GRACE_MS = 60_000;
/** A hand-out refreshes the file's modification time when it is older than this. */
const TOUCH_AFTER_MS = 15_000;
const fileName = (blobId: string) => `${blobId}.apk`;

export function offloadDir(o: OffloadDirOptions): OffloadDir {
  const writing = new Map<string, Promise<void>>();

  async function write(apk: ApkDoc): Promise<void> {
    await mkdir(o.dir, { recursive: true });
    const part = path.join(o.dir, `.${apk.blobId}.${randomBytes(6).toString('hex')}${PART_SUFFIX}`);
    const key = unwrapDataKey(o.keys, apk.wrappedKey, apk.blobId);
    try {
      await pipeline(
        o.blobs.openRange(apk.blobId, 0, ciphertextSize(apk.size)),
        new SegmentDecryptor(key, Buffer.from(apk.noncePrefix, 'base64')),
        createWriteStream(part, { flags: 'wx', mode: 0o600 }),
      );
      // Readable by nginx's workers, whatever the process's umask (077 under apkrelay start); the
      // directory's own mode (0750, group www-data in ops/deploy) keeps everyone else out.
      await chmod(part, 0o644);
      const written = (await stat(part)).size;
      if (written !== apk.size) {
        throw new AppError('BLOB_INCOMPLETE', { message: `wrote ${written} of ${apk.size} bytes` });
      }
      await rename(part, path.join(o.dir, fileName(apk.blobId)));
    } finally {
      await rm(part, { force: true });
    }
  }

  /** Removes the files of APKs no longer served, and stale partial files. */
  async function prune(keep: string): Promise<void> {
    for (const name of await readdir(o.dir)) {
      const file = path.join(o.dir, name);
      if (name.endsWith(PART_SUFFIX)) {
        const s = await stat(file).catch(() => null);
        if (s && Date.now() - s.mtimeMs > STALE_PART_MS) await rm(file, { force: true });
        continue;
      }
      const blobId = name.endsWith('.apk') ? name.slice(0, -'.apk'.length) : '';
      if (blobId === keep || !isUploadId(blobId) || (await o.isServed(blobId))) continue;
      const s = await stat(file).catch(() => null);
      if (s && Date.now() - s.mtimeMs >= HANDED_GRACE_MS) await rm(file, { force: true });
    }
  }

  /** Whether the complete file is there, its modification time refreshed as a hand-out. */
  async function handOut(apk: ApkDoc): Promise<boolean> {
    const file = path.join(o.dir, fileName(apk.blobId));
    const present = await stat(file).catch(() => null);
    if (present?.size !== apk.size) return false;
    if (Date.now() - present.mtimeMs < TOUCH_AFTER_MS) return true;
    const now = new Date();
    // Gone since the stat (pruned by another process): written again below.
    return utimes(file, now, now).then(
      () => true,
      () => false,
    );
  }

  async function ensure(apk: ApkDoc): Promise<void> {
    if (await handOut(apk)) return;
    await write(apk);
    await prune(apk.blobId).catch((err: Error) =>
      o.log.warn({ err: err.message }, 'download offload: pruning failed'),
    );
  }

  return {
    async fileFor(apk) {
      if (!isUploadId(apk.blobId)) throw new Error(`not a blob id: ${apk.blobId}`);
      let pending = writing.get(apk.blobId);
      if (!pending) {
        pending = ensure(apk).finally(() => writing.delete(apk.blobId));
        writing.set(apk.blobId, pending);
      }
      await pending;
      return fileName(apk.blobId);
    },
  };
}
