/**
 * Hostile and broken inputs end as `valid: false` with an error code, quickly and without an
 * uncaught exception or unbounded reads.
 */
import { bufferSource } from '../../../../shared/apk/sources';
import { inspectApk } from '../../../../shared/apk';
import type { RandomAccessSource } from '../../../../shared/apk/random-access';
import { buildZip } from '../../../helpers/apk/build-zip';

/** The verdict on a hostile input; one that hangs fails on jest's test timeout, not a wall clock. */
async function verdict(source: RandomAccessSource): Promise<{ valid: boolean; codes: string[] }> {
  const report = await inspectApk(source, 'input.apk');
  return { valid: report.valid, codes: report.errors.map((e) => e.code) };
}

/** A source claiming a huge size; counts the bytes it is asked for. */
function hugeSource(size: number): RandomAccessSource & { bytesRead: number } {
  const src = {
    size,
    bytesRead: 0,
    read(_offset: number, length: number): Promise<Buffer> {
      src.bytesRead += length;
      return Promise.resolve(Buffer.alloc(length));
    },
    close: () => Promise.resolve(),
  };
  return src;
}

/** Two stored entries where A's data is stretched over B (the "overlapping files" zip bomb). */
function overlappingZip(): Buffer {
  const b = Buffer.alloc(1000, 0x41);
  const zip = buildZip([
    { name: 'AndroidManifest.xml', data: Buffer.from('a') },
    { name: 'b.bin', data: b },
  ]);
  const stretched = 1 + 30 + 'b.bin'.length + b.length;
  zip.writeUInt32LE(stretched, 18); // LFH compressed size
  zip.writeUInt32LE(stretched, 22); // LFH uncompressed size
  const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  zip.writeUInt32LE(stretched, cd + 20);
  zip.writeUInt32LE(stretched, cd + 24);
  return zip;
}

describe('inspect on hostile input', () => {
  test.each<[string, () => RandomAccessSource, string]>([
    ['an empty file', () => bufferSource(Buffer.alloc(0)), 'APK_TRUNCATED'],
    ['random bytes', () => bufferSource(Buffer.alloc(200_000, 0x5a)), 'NOT_A_ZIP'],
    [
      'a truncated archive',
      () =>
        bufferSource(
          buildZip([{ name: 'AndroidManifest.xml', data: Buffer.alloc(5000, 1) }]).subarray(
            0,
            3000,
          ),
        ),
      'NOT_A_ZIP',
    ],
    [
      'a zip bomb entry',
      () =>
        bufferSource(
          buildZip([
            { name: 'AndroidManifest.xml', data: Buffer.alloc(16 * 1024 * 1024), deflate: true },
          ]),
        ),
      'ZIP_BOMB',
    ],
    ['overlapping entries', () => bufferSource(overlappingZip()), 'ZIP_BOMB'],
    [
      'a ZIP without a manifest',
      () => bufferSource(buildZip([{ name: 'classes.dex', data: Buffer.from('dex') }])),
      'MANIFEST_MISSING',
    ],
    [
      'a manifest that is not binary XML',
      () =>
        bufferSource(buildZip([{ name: 'AndroidManifest.xml', data: Buffer.from('<manifest/>') }])),
      'MANIFEST_MALFORMED',
    ],
  ])('%s', async (_label, source, code) => {
    const v = await verdict(source());
    expect(v.valid).toBe(false);
    expect(v.codes).toContain(code);
  });

  test('an absurdly large input is refused without reading it', async () => {
    const src = hugeSource(2 ** 45);
    const v = await verdict(src);
    expect(v).toMatchObject({ valid: false, codes: ['APK_TOO_LARGE'] });
    expect(src.bytesRead).toBe(0);
  });

  test('an EOCD pointing far outside the file is refused after reading only the tail', async () => {
    const src = hugeSource(3 * 1024 * 1024 * 1024);
    const v = await verdict(src);
    expect(v.valid).toBe(false);
    expect(v.codes).toEqual(['NOT_A_ZIP']);
    expect(src.bytesRead).toBeLessThan(200_000);
  });
});
