/**
 * The ARDELTA2 generator's view of an APK's entries, read with shared/apk's ZIP code: where each
 * entry's data starts (after its local header's name and extra field, which may differ from the
 * central directory's), and null (no ARDELTA2 for the pair) for a ZIP64 or malformed archive.
 */
import { crc32 } from 'node:zlib';
import { readApkEntries } from '../../../../shared/delta/apk-entries';
import { buildZip, writeZip } from '../../../helpers/apk/build-zip';

test('entries in directory order, data offsets after each local header, extra field included', async () => {
  const zip = writeZip({
    entries: [
      { name: Buffer.from('a.txt'), method: 0, data: Buffer.from('stored!') },
      {
        name: Buffer.from('b/c.dex'),
        method: 8,
        data: Buffer.from('hello'),
        raw: Buffer.from('cb48cdc9c90700', 'hex'),
        extra: Buffer.alloc(3),
      },
    ],
    beforeCd: Buffer.from('signing block stand-in'),
    comment: Buffer.alloc(0),
  });
  expect(await readApkEntries(zip)).toEqual([
    {
      name: 'a.txt',
      method: 0,
      crc32: crc32('stored!'),
      localHeaderOffset: 0,
      dataOffset: 30 + 5,
      compressedSize: 7,
      uncompressedSize: 7,
    },
    {
      name: 'b/c.dex',
      method: 8,
      crc32: crc32('hello'),
      localHeaderOffset: 30 + 5 + 7,
      dataOffset: 42 + 30 + 7 + 3,
      compressedSize: 7,
      uncompressedSize: 5,
    },
  ]);
});

test('not a ZIP: null', async () => {
  expect(await readApkEntries(Buffer.from('this is not a zip archive at all, no EOCD'))).toBeNull();
});

test('a ZIP64 archive (its EOCD locator before the EOCD): null', async () => {
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  const zip = buildZip([{ name: 'a', data: Buffer.from('x') }], { beforeCd: Buffer.alloc(0) });
  const eocdAt = zip.length - 22;
  const withLocator = Buffer.concat([zip.subarray(0, eocdAt), locator, zip.subarray(eocdAt)]);
  expect(await readApkEntries(zip)).toHaveLength(1);
  expect(await readApkEntries(withLocator)).toBeNull();
});

test('a local header that disagrees with the directory: null', async () => {
  const zip = buildZip([{ name: 'a.txt', data: Buffer.from('x'), localName: 'b.txt' }]);
  expect(await readApkEntries(zip)).toBeNull();
});
