/**
 * The DeltaScratch port on Node: an ARDELTA2 patch's dfOld in a private temp file beside the
 * installation's other files, written in order and read back by position while the patch's
 * records are applied, then deleted (docs/delta-updates.md, "Applying").
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { DeltaScratch } from '../core/ports';

export function scratchFiles(dir: string): () => DeltaScratch {
  return () => {
    const file = path.join(dir, `dfold-${randomUUID()}.tmp`);
    let handle: Promise<FileHandle> | undefined;
    let size = 0;
    const opened = () =>
      (handle ??= mkdir(dir, { recursive: true }).then(() => open(file, 'w+', 0o600)));
    return {
      async append(chunk) {
        const h = await opened();
        for (let at = 0; at < chunk.length;) {
          at += (await h.write(chunk, at, chunk.length - at, size + at)).bytesWritten;
        }
        size += chunk.length;
      },
      async finish() {
        const h = await opened();
        return {
          size,
          async read(position, length) {
            const bytes = Buffer.alloc(length);
            const { bytesRead } = await h.read(bytes, 0, length, position);
            if (bytesRead !== length) throw new Error(`${file}: short read at ${position}`);
            return bytes;
          },
        };
      },
      async discard() {
        const h = handle;
        handle = undefined;
        if (h) await (await h.catch(() => null))?.close();
        await rm(file, { force: true });
      },
    };
  };
}
