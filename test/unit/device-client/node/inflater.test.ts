import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { inflatePatch } from '../../../../device-client/node/inflater';

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size)
    yield await Promise.resolve(bytes.subarray(at, at + size));
}

test('a long patch read slowly inflates whole and leaves no listener behind per wait', async () => {
  // The inflate stream the code under test makes, caught at its first listener.
  const streams = new Set<zlib.Inflate>();
  const spy = jest.spyOn(zlib.Inflate.prototype, 'once');
  const stream = () => [...streams][0]!;
  // 8 MiB that does not compress, fed in 64 KiB pieces: nearly every write waits for a drain.
  const plain = randomBytes(8 << 20);
  let size = 0;
  let mostCloseListeners = 0;
  try {
    for await (const chunk of inflatePatch(pieces(zlib.deflateSync(plain), 64 << 10))) {
      size += chunk.length;
      for (const call of spy.mock.contexts) streams.add(call as zlib.Inflate);
      mostCloseListeners = Math.max(mostCloseListeners, stream().listenerCount('close'));
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    spy.mockRestore();
  }
  expect(size).toBe(plain.length);
  expect(streams.size).toBe(1);
  // Node's own stream machinery holds a few; one more per wait would reach about 128 here.
  expect(mostCloseListeners).toBeLessThanOrEqual(4);
});
