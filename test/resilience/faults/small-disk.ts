/**
 * A small filesystem of its own (tmpfs, mounted by this process: the suite runs as root, locally
 * and in CI) that a test can fill to the last byte and free again, so writes fail with ENOSPC as
 * on a full disk, without touching any other filesystem.
 */
import { execFile as execFileCb } from 'node:child_process';
import { mkdtemp, open, rm, rmdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { track } from '../../helpers/resources';

const execFile = promisify(execFileCb);

export interface SmallDisk {
  readonly dir: string;
  /** Writes a filler file until the filesystem is full; returns the bytes it took. */
  fill(): Promise<number>;
  /** Deletes the filler. */
  free(): Promise<void>;
  close(): Promise<void>;
}

export async function mountSmallDisk(name: string, sizeBytes: number): Promise<SmallDisk> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `apkrelay-${name}-`));
  try {
    await execFile('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir]);
  } catch (err) {
    await rmdir(dir);
    throw new Error(
      `the disk-full test mounts a tmpfs and must run as root (mount -t tmpfs failed: ${
        (err as Error).message
      })`,
      { cause: err },
    );
  }
  const filler = path.join(dir, 'filler');
  return {
    dir,
    async fill() {
      const handle = await open(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024);
      let total = 0;
      try {
        for (let size = chunk.length; size >= 1;) {
          try {
            const { bytesWritten } = await handle.write(chunk, 0, size);
            total += bytesWritten;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
            size = Math.floor(size / 2);
          }
        }
      } finally {
        await handle.close();
      }
      return total;
    },
    free: () => rm(filler, { force: true }),
    close: track(`tmpfs ${dir}`, async () => {
      await execFile('umount', ['-l', dir]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }),
  };
}
