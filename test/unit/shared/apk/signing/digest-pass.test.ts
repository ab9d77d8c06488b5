import { createHash } from 'node:crypto';
import { bufferSource } from '../../../../../shared/apk/sources';
import {
  OFF_THREAD_MD5_MIN_BYTES,
  runDigestPass,
} from '../../../../../shared/apk/signing/digest-pass';
import type { ZipSections } from '../../../../../shared/apk/zip/types';

const MiB = 1024 * 1024;

/** apksig computeOneMbChunkContentDigests, written the obvious (non-streaming) way. */
function referenceChunked(hash: 'sha256' | 'sha512', sections: Buffer[]): Buffer {
  const digests: Buffer[] = [];
  for (const s of sections) {
    for (let off = 0; off < s.length; off += MiB) {
      const chunk = s.subarray(off, Math.min(s.length, off + MiB));
      const prefix = Buffer.alloc(5);
      prefix[0] = 0xa5;
      prefix.writeUInt32LE(chunk.length, 1);
      digests.push(createHash(hash).update(prefix).update(chunk).digest());
    }
  }
  const head = Buffer.alloc(5);
  head[0] = 0x5a;
  head.writeUInt32LE(digests.length, 1);
  return createHash(hash).update(head).update(Buffer.concat(digests)).digest();
}

/** apksig VerityTreeBuilder: whole levels in memory, bottom-up. */
function referenceVerity(data: Buffer): Buffer {
  const salt = Buffer.alloc(8);
  const pad = (b: Buffer): Buffer =>
    b.length % 4096 === 0 ? b : Buffer.concat([b, Buffer.alloc(4096 - (b.length % 4096))]);
  let level = pad(data);
  for (;;) {
    const digests: Buffer[] = [];
    for (let off = 0; off < level.length; off += 4096) {
      digests.push(
        createHash('sha256')
          .update(salt)
          .update(level.subarray(off, off + 4096))
          .digest(),
      );
    }
    const next = Buffer.concat(digests);
    if (next.length <= 4096) {
      const root = createHash('sha256').update(salt).update(pad(next)).digest();
      const size = Buffer.alloc(8);
      size.writeBigUInt64LE(BigInt(data.length));
      return Buffer.concat([root, size]);
    }
    level = pad(next);
  }
}

/** A fake file: [entries][signing block][central directory][EOCD]. */
function layout(entries: number, block: number, cd: number) {
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt32LE(cd, 12);
  eocd.writeUInt32LE(entries + block, 16);
  let seed = 1;
  const rand = (n: number): Buffer => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = (seed = (seed * 48271) % 2147483647) & 0xff;
    return b;
  };
  const parts = { entries: rand(entries), block: rand(block), cd: rand(cd) };
  const file = Buffer.concat([parts.entries, parts.block, parts.cd, eocd]);
  const sections: ZipSections = {
    cdOffset: entries + block,
    cdSize: cd,
    cdRecordCount: 0,
    eocdOffset: entries + block + cd,
    eocd,
  };
  const modifiedEocd = Buffer.from(eocd);
  modifiedEocd.writeUInt32LE(entries, 16);
  return { file, sections, parts, modifiedEocd };
}

describe('single-pass digests', () => {
  test.each([
    ['small', 1000, 4096, 300],
    ['entries spanning 1 MiB chunks', 2 * MiB + 12345, 8192, 70_000],
    ['central directory larger than a chunk', 4096 * 5, 4096, MiB + 77],
  ])('match the reference chunked and verity digests (%s)', async (_l, e, b, c) => {
    const { file, sections, parts, modifiedEocd } = layout(e, b, c);
    const result = await runDigestPass(
      bufferSource(file),
      sections,
      e,
      new Set(['CHUNKED_SHA256', 'CHUNKED_SHA512', 'VERITY_CHUNKED_SHA256'] as const),
    );
    const covered = [parts.entries, parts.cd, modifiedEocd];
    expect(result.contentDigests.get('CHUNKED_SHA256')).toEqual(
      referenceChunked('sha256', covered),
    );
    expect(result.contentDigests.get('CHUNKED_SHA512')).toEqual(
      referenceChunked('sha512', covered),
    );
    expect(result.contentDigests.get('VERITY_CHUNKED_SHA256')).toEqual(
      referenceVerity(Buffer.concat(covered)),
    );
    expect(result.sha256).toBe(createHash('sha256').update(file).digest('hex'));
    expect(result.md5).toBe(createHash('md5').update(file).digest('hex'));
  });

  test('verity of data that fills exactly one level block', async () => {
    const { file, sections, parts, modifiedEocd } = layout(4096 * 128 - 22 - 4096, 4096, 4096);
    const result = await runDigestPass(
      bufferSource(file),
      sections,
      sections.cdOffset - 4096,
      new Set(['VERITY_CHUNKED_SHA256'] as const),
    );
    expect(result.contentDigests.get('VERITY_CHUNKED_SHA256')).toEqual(
      referenceVerity(Buffer.concat([parts.entries, parts.cd, modifiedEocd])),
    );
  });

  test('large inputs hash MD5 on a worker thread with the same result', async () => {
    const { file, sections, parts, modifiedEocd } = layout(
      OFF_THREAD_MD5_MIN_BYTES + 5,
      4096,
      1000,
    );
    const result = await runDigestPass(
      bufferSource(file),
      sections,
      parts.entries.length,
      new Set(['CHUNKED_SHA256'] as const),
    );
    expect(result.md5).toBe(createHash('md5').update(file).digest('hex'));
    expect(result.sha256).toBe(createHash('sha256').update(file).digest('hex'));
    expect(result.contentDigests.get('CHUNKED_SHA256')).toEqual(
      referenceChunked('sha256', [parts.entries, parts.cd, modifiedEocd]),
    );
  });

  test('without a signing block only whole-file hashes are computed', async () => {
    const data = Buffer.from('not an apk');
    const result = await runDigestPass(bufferSource(data), null, null, new Set());
    expect(result.contentDigests.size).toBe(0);
    expect(result.sha256).toBe(createHash('sha256').update(data).digest('hex'));
  });
});
