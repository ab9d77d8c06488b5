/**
 * Where an upload's file waits when it arrives before its API key (react-native-push-link's
 * publisher sends `apk` first, then `apiKey`): never in the store, which only an accepted key may
 * reach. The first `memoryBytes` stay in memory; past them the bytes go to a spool file in
 * `spoolDir` (under DATA_DIR), created 0600 in a 0700 folder and unlinked the moment it is open, so
 * it has no name anyone could open, and a process killed mid-spool leaves nothing behind: the
 * kernel frees an unlinked file with its last descriptor. `discard()` closes it: the bytes are gone
 * at once. `sweepSpool` removes what a crash between open and unlink could have left.
 */
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../shared/errors';

/** A file part held until its key is judged. */
export interface HeldFile {
  readonly size: number;
  /** The held bytes from the first (once: the spool is read from its start). */
  open(): Readable;
  /** Frees the memory and closes (so deletes) the spool file. Idempotent. */
  discard(): Promise<void>;
}

export interface HoldOptions {
  /** Bytes kept in memory before the rest is spooled (UPLOAD_PREAUTH_BYTES). */
  readonly memoryBytes: number;
  /** The private folder for spool files (DATA_DIR/spool/uploads). */
  readonly spoolDir: string;
  /** The process's bytes on disk for all held files at once (UPLOAD_SPOOL_BYTES). */
  readonly budget: SpoolBudget;
}

/** Bytes the spool may hold at once, shared by every upload of the process. */
export interface SpoolBudget {
  /** Reserves `bytes`; false (nothing reserved) when that would pass the bound. */
  take(bytes: number): boolean;
  give(bytes: number): void;
}

export function spoolBudget(maxBytes: number): SpoolBudget {
  let used = 0;
  return {
    take(bytes) {
      if (used + bytes > maxBytes) return false;
      used += bytes;
      return true;
    },
    give(bytes) {
      used = Math.max(0, used - bytes);
    },
  };
}

const SPOOL_SUFFIX = '.spool';

/** An anonymous spool file: created private, unlinked at once, reachable only by its handle. */
async function openSpool(dir: string): Promise<FileHandle> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const name = path.join(dir, `${randomBytes(16).toString('hex')}${SPOOL_SUFFIX}`);
  const file = await open(name, 'wx+', 0o600);
  // Another process's start-up sweep may have removed it already: the handle still holds it.
  await unlink(name).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return;
    await file.close();
    throw err;
  });
  return file;
}

/** A Writable keeping the first bytes in memory and appending the rest to a spool file. */
class Hold extends Writable {
  chunks: Buffer[] = [];
  size = 0;
  file: FileHandle | null = null;
  /** Bytes reserved from the budget, given back by discard(). */
  reserved = 0;
  /** The spool's open, while it runs: discard() waits for it, so no handle escapes. */
  opening: Promise<FileHandle> | null = null;
  discarded = false;

  constructor(private readonly options: HoldOptions) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error) => void): void {
    this.append(chunk).then(() => done(), done);
  }

  private async append(chunk: Buffer): Promise<void> {
    const at = this.size;
    this.size += chunk.length;
    if (!this.file && this.size <= this.options.memoryBytes) {
      this.chunks.push(chunk);
      return;
    }
    const toDisk = this.file ? chunk.length : at + chunk.length;
    // UPLOAD_SPOOL_BYTES would be passed: the upload is refused, its held bytes dropped.
    if (!this.options.budget.take(toDisk)) throw new AppError('UPLOAD_SPOOL_FULL');
    this.reserved += toDisk;
    if (!this.file) {
      this.opening = openSpool(this.options.spoolDir);
      const file = await this.opening;
      if (this.discarded) {
        await file.close();
        throw new Error('the held upload was discarded');
      }
      this.file = file;
      await writeAll(file, Buffer.concat(this.chunks), 0);
      this.chunks = [];
    }
    await writeAll(this.file, chunk, at);
  }

  async discard(): Promise<void> {
    if (this.discarded) return;
    this.discarded = true;
    this.chunks = [];
    this.options.budget.give(this.reserved);
    this.reserved = 0;
    if (!this.file && this.opening) await this.opening.catch(() => undefined);
    const { file } = this;
    this.file = null;
    await file?.close();
  }
}

async function writeAll(file: FileHandle, bytes: Buffer, position: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await file.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}

/**
 * Holds `stream` whole (memory, then spool). Rejects, with nothing left behind, when the stream
 * fails or ends short (the form was cut or refused meanwhile).
 */
export async function holdBeforeKey(stream: Readable, options: HoldOptions): Promise<HeldFile> {
  const hold = new Hold(options);
  try {
    await pipeline(stream, hold);
  } catch (err) {
    await hold.discard();
    throw err;
  }
  const { size, chunks, file } = hold;
  return {
    size,
    open: () =>
      file
        ? file.createReadStream({ start: 0, end: Math.max(size - 1, 0), autoClose: false })
        : Readable.from(chunks),
    discard: () => hold.discard(),
  };
}

/**
 * Removes spool files a crash left between their open and unlink (at start). Files of other live
 * processes are unlinked at once by their owner, so removing one is harmless.
 */
export async function sweepSpool(spoolDir: string): Promise<number> {
  const names = await readdir(spoolDir).catch(() => [] as string[]);
  const stale = names.filter((n) => n.endsWith(SPOOL_SUFFIX));
  await Promise.all(stale.map((n) => rm(path.join(spoolDir, n), { force: true })));
  return stale.length;
}
