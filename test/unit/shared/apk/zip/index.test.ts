import { deflateRawSync } from 'node:zlib';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferSource, openFileSource } from '../../../../../shared/apk/sources';
import {
  checkEntryLayout,
  findEntry,
  openZip,
  DEFAULT_ZIP_LIMITS,
} from '../../../../../shared/apk/zip';
import { buildZip, type TestZipEntry } from '../../../../helpers/apk/build-zip';

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { code?: string }).code ?? `uncoded: ${String(err)}`;
  }
  return 'resolved';
}

describe('ZIP reader', () => {
  const hello = Buffer.from('hello, world\n'.repeat(50));

  test('lists entries and reads stored and deflated data', async () => {
    const zip = await openZip(
      bufferSource(
        buildZip([
          { name: 'a.txt', data: hello },
          { name: 'dir/b.bin', data: hello, deflate: true },
        ]),
      ),
    );
    expect(zip.entries.map((e) => [e.name, e.method])).toEqual([
      ['a.txt', 0],
      ['dir/b.bin', 8],
    ]);
    expect(zip.sections.cdRecordCount).toBe(2);
    const b = findEntry(zip, 'dir/b.bin');
    expect(b).toBeDefined();
    expect(await zip.readEntry(b!, 1 << 20)).toEqual(hello);
    expect(await zip.readEntry(zip.entries[0]!, 1 << 20)).toEqual(hello);
    await checkEntryLayout(zip);
  });

  test('finds the EOCD behind a comment', async () => {
    const zip = await openZip(
      bufferSource(buildZip([{ name: 'x', data: hello }], { comment: Buffer.alloc(300, 0x50) })),
    );
    expect(zip.sections.eocd.length).toBe(322);
    expect(zip.entries).toHaveLength(1);
  });

  test('reads through a file handle', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zip-reader-'));
    const path = join(dir, 'a.zip');
    await writeFile(path, buildZip([{ name: 'x', data: hello, deflate: true }]));
    const source = await openFileSource(path);
    try {
      const zip = await openZip(source);
      expect(await zip.readEntry(zip.entries[0]!, 10_000)).toEqual(hello);
      expect(await codeOf(source.read(source.size - 2, 10))).toBe('APK_TRUNCATED');
    } finally {
      await source.close();
      await rm(dir, { recursive: true });
    }
  });

  test.each([
    ['empty input', Buffer.alloc(0), 'APK_TRUNCATED'],
    ['random bytes', Buffer.alloc(5000, 7), 'NOT_A_ZIP'],
    ['truncated archive', buildZip([{ name: 'x', data: hello }]).subarray(0, 100), 'NOT_A_ZIP'],
  ])('refuses %s', async (_label, bytes, code) => {
    expect(await codeOf(openZip(bufferSource(bytes)))).toBe(code);
  });

  test('refuses duplicate names', async () => {
    const bytes = buildZip([
      { name: 'x', data: hello },
      { name: 'x', data: hello },
    ]);
    expect(await codeOf(openZip(bufferSource(bytes)))).toBe('ZIP_DUPLICATE_ENTRY');
  });

  test('refuses more entries than the limit', async () => {
    const bytes = buildZip([
      { name: 'a', data: hello },
      { name: 'b', data: hello },
    ]);
    const limits = { ...DEFAULT_ZIP_LIMITS, maxEntries: 1 };
    expect(await codeOf(openZip(bufferSource(bytes), limits))).toBe('ZIP_TOO_MANY_ENTRIES');
  });

  test('refuses a record count beyond the directory', async () => {
    const bytes = buildZip([{ name: 'a', data: hello }], { recordCount: 3 });
    expect(await codeOf(openZip(bufferSource(bytes)))).toBe('ZIP_MALFORMED_CD_RECORD');
  });

  test('refuses a declared compression ratio typical of zip bombs', async () => {
    const zeros = Buffer.alloc(8 * 1024 * 1024);
    const bytes = buildZip([{ name: 'bomb', data: zeros, deflate: true }]);
    expect(deflateRawSync(zeros).length * 200).toBeLessThan(zeros.length);
    expect(await codeOf(openZip(bufferSource(bytes)))).toBe('ZIP_BOMB');
  });

  test('stops inflating past the declared size', async () => {
    const bytes = buildZip([
      {
        name: 'liar',
        data: hello,
        deflate: true,
        cdUncompressedSize: 10,
        localUncompressedSize: 10,
      },
    ]);
    const zip = await openZip(bufferSource(bytes));
    expect(await codeOf(zip.readEntry(zip.entries[0]!, 1 << 20))).toBe('ZIP_BOMB');
  });

  test('refuses local header name and size mismatches', async () => {
    const renamed = await openZip(
      bufferSource(buildZip([{ name: 'a', data: hello, localName: 'b' }])),
    );
    expect(await codeOf(renamed.readEntry(renamed.entries[0]!, 1 << 20))).toBe('ZIP_LFH_MISMATCH');
    expect(await codeOf(checkEntryLayout(renamed))).toBe('ZIP_LFH_MISMATCH');
    const resized = await openZip(
      bufferSource(buildZip([{ name: 'a', data: hello, localUncompressedSize: 3 }])),
    );
    expect(await codeOf(resized.readEntry(resized.entries[0]!, 1 << 20))).toBe('ZIP_LFH_MISMATCH');
  });

  test('checks every local header of a large archive, wherever the mismatch is', async () => {
    const entries: TestZipEntry[] = Array.from({ length: 3000 }, (_, i) => ({
      name: `res/f${i}.bin`,
      data: Buffer.alloc(i % 7 === 0 ? 70_000 : 50, i & 0xff),
    }));
    await checkEntryLayout(await openZip(bufferSource(buildZip(entries))));
    entries[2500] = { ...entries[2500]!, localName: 'res/XXXXX.bin' };
    const bad = await openZip(bufferSource(buildZip(entries)));
    expect(await codeOf(checkEntryLayout(bad))).toBe('ZIP_LFH_MISMATCH');
  });

  test('uses the central directory method, as Android does', async () => {
    // Stored in the local data but the CD says "method 21": any non-STORED method inflates.
    const bytes = buildZip([{ name: 'a', data: hello, deflate: true, cdMethod: 21 }]);
    const zip = await openZip(bufferSource(bytes));
    expect(await zip.readEntry(zip.entries[0]!, 1 << 20)).toEqual(hello);
  });

  test('refuses an entry larger than the caller allows', async () => {
    const zip = await openZip(bufferSource(buildZip([{ name: 'a', data: hello }])));
    expect(await codeOf(zip.readEntry(zip.entries[0]!, 10))).toBe('ZIP_ENTRY_TOO_LARGE');
  });
});
