/**
 * The Inflater port on Node: an ARDELTA1 patch's zlib stream inflated as it arrives, a corrupt
 * stream becoming the format's `corrupt` refusal (so callers handle one error type), any other
 * failure (the network's) passed on as it is. The server proves its patches with the same code
 * (shared/delta/prove-patch.ts). The format itself is device-client/protocol/delta/.
 */
import { createInflate } from 'node:zlib';
import { DeltaPatchError } from '../protocol/delta/format';
import type { InstalledApk, Inflater } from '../core/ports';
import { open } from 'node:fs/promises';

/** The inflated bytes of `patch`, chunk by chunk. */
export async function* inflatePatch(patch: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const inflate = createInflate();
  const feed = (async () => {
    try {
      for await (const chunk of patch) {
        if (inflate.write(chunk)) continue;
        // Drained, or closed by the reader (a refusal, a corrupt stream): go on either way.
        await new Promise<void>((resolve) => {
          // Each wait removes both of its listeners, whichever fires: one per wait would pile up.
          const done = () => {
            inflate.off('drain', done);
            inflate.off('close', done);
            resolve();
          };
          inflate.once('drain', done);
          inflate.once('close', done);
        });
      }
      inflate.end();
    } catch (err) {
      inflate.destroy(err as Error);
    }
  })();
  try {
    for await (const chunk of inflate) yield chunk as Buffer;
  } catch (err) {
    if (err instanceof DeltaPatchError) throw err;
    const zlibError = typeof (err as { errno?: unknown }).errno === 'number';
    if (!zlibError) throw err;
    throw new DeltaPatchError('corrupt', 'the patch is not a valid zlib stream', { cause: err });
  } finally {
    inflate.destroy();
    await feed;
  }
}

export const nodeInflater: Inflater = { inflate: inflatePatch };

/** The installed APK (`file`, whose MD5 the caller knows) read by position. */
export function installedApkFile(file: string, md5: string, size: number): InstalledApk {
  return {
    md5,
    size,
    async read(position, length) {
      const handle = await open(file, 'r');
      try {
        const bytes = Buffer.alloc(length);
        const { bytesRead } = await handle.read(bytes, 0, length, position);
        if (bytesRead !== length) throw new Error(`${file}: short read at ${position}`);
        return bytes;
      } finally {
        await handle.close();
      }
    },
  };
}
