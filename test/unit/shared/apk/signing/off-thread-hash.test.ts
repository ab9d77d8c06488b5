/**
 * The off-thread hash: the digest of every chunk fed in order, with the chunks' buffers going back
 * and forth to the thread instead of a new one per chunk.
 */
import { OffThreadHash } from '../../../../../shared/apk/signing/off-thread-hash';

/** 20 chunks of 64 KiB and 7 bytes more; byte i is i % 251. */
const DATA = Buffer.from(Array.from({ length: 20 * 65_536 + 7 }, (_, i) => i % 251));
/** MD5 of DATA, computed once by Python's hashlib. */
const DATA_MD5 = '6340213efa4e80f72d08ded70bc75b59';

test('the MD5 of 21 chunks, from at most 4 buffers (the chunks in flight)', async () => {
  const hash = new OffThreadHash('md5');
  try {
    for (let at = 0; at < DATA.length; at += 65_536) {
      await hash.update(DATA.subarray(at, at + 65_536));
    }
    expect(await hash.digest()).toBe(DATA_MD5);
    expect(hash.buffersMade).toBeLessThanOrEqual(4);
  } finally {
    await hash.close();
  }
});
