/**
 * The zlib side of an ARDELTA1 patch on the server: inflating a stored patch as a stream (a
 * corrupt stream becomes the format's `corrupt` refusal, so callers handle one error type) and
 * deflating a generated one. The format itself is device-client/protocol/delta/.
 */
import { createInflate } from 'node:zlib';
import { DeltaPatchError } from '../../device-client/protocol/delta/format';

/** The inflated bytes of `patch`, chunk by chunk. */
export async function* inflatePatch(patch: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const inflate = createInflate();
  const feed = (async () => {
    try {
      for await (const chunk of patch) {
        if (!inflate.write(chunk)) await new Promise((resolve) => inflate.once('drain', resolve));
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
