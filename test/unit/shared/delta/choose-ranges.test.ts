/**
 * Which entries go file by file, on small real ZIPs: a changed deflated entry that pako reproduces
 * (with the setting it was made with), a new one, one made by Node's zlib (Chromium's, not
 * reproducible: it stays compressed), an unchanged one and a stored one (left alone); the old
 * ranges are the old entries of the same names. The expected settings are the first of the
 * contract's order that Debian's zlib 1.2.13 makes the same bytes with (python3: level 2 filtered
 * is level 2 default for this text: levels 1-3 ignore "filtered"). Offsets are the ZIP layout's, counted by hand:
 * each entry is a 30-byte local header, its name, then its data (nodeAt: node.bin's header).
 */
import { deflateRaw } from 'pako';
import { deflateRawSync } from 'node:zlib';
import { chooseRanges } from '../../../../shared/delta/choose-ranges';
import { readApkEntries } from '../../../../shared/delta/apk-entries';
import { writeZip } from '../../../helpers/apk/build-zip';

function lines(n: number, salt: string): Buffer {
  return Buffer.from(
    Array.from({ length: n }, (_, i) => `${salt} ${i} ${(i * 31) % 17}\n`).join(''),
  );
}

interface Spec {
  name: string;
  data: Buffer;
  raw?: Buffer;
}
const zipOf = (specs: Spec[]) =>
  writeZip({
    entries: specs.map((s) => ({
      name: Buffer.from(s.name),
      method: s.raw === undefined ? 0 : 8,
      data: s.data,
      ...(s.raw === undefined ? {} : { raw: s.raw }),
    })),
    beforeCd: Buffer.alloc(0),
    comment: Buffer.alloc(0),
  });

test('changed and new deflated entries that pako reproduces; old ranges of the same names', async () => {
  const dex = lines(300, 'dex');
  const dex2 = Buffer.concat([dex, Buffer.from('one more method\n')]);
  const res = lines(100, 'res');
  const node = lines(200, 'node');
  const node2 = lines(201, 'node');
  const oldDex = Buffer.from(deflateRaw(dex, { level: 6 }));
  const oldRes = Buffer.from(deflateRaw(res, { level: 9 }));
  const oldNode = deflateRawSync(node, { level: 6 });
  const old = zipOf([
    { name: 'classes.dex', data: dex, raw: oldDex },
    { name: 'res.arsc', data: res, raw: oldRes },
    { name: 'node.bin', data: node, raw: oldNode },
    { name: 'stored', data: Buffer.from('stored v1') },
  ]);
  const newDex = Buffer.from(deflateRaw(dex2, { level: 2, strategy: 1 }));
  const newNode = deflateRawSync(node2, { level: 6 });
  const added = Buffer.from(deflateRaw(lines(50, 'added'), { level: 9 }));
  const next = zipOf([
    { name: 'classes.dex', data: dex2, raw: newDex },
    { name: 'res.arsc', data: res, raw: oldRes },
    { name: 'node.bin', data: node2, raw: newNode },
    { name: 'added.xml', data: lines(50, 'added'), raw: added },
    { name: 'stored', data: Buffer.from('stored v2') },
  ]);
  const choice = chooseRanges(
    { bytes: old, entries: (await readApkEntries(old))! },
    { bytes: next, entries: (await readApkEntries(next))! },
  );
  const nodeAt = 30 + 11 + newDex.length + 30 + 8 + oldRes.length;
  const addedAt = nodeAt + 30 + 8 + newNode.length + 30 + 9;
  expect(choice).toEqual({
    old: [{ offset: 30 + 11, length: oldDex.length }],
    new: [
      {
        offset: 30 + 11,
        length: newDex.length,
        params: { level: 2, strategy: 0, memLevel: 8, windowBits: 15 },
      },
      {
        offset: addedAt,
        length: added.length,
        params: { level: 6, strategy: 0, memLevel: 8, windowBits: 15 },
      },
    ],
    changed: 3,
    reproduced: 2,
  });
});

test('nothing changed: no ranges', async () => {
  const zip = zipOf([
    { name: 'a', data: lines(10, 'a'), raw: Buffer.from(deflateRaw(lines(10, 'a'))) },
  ]);
  const entries = (await readApkEntries(zip))!;
  expect(chooseRanges({ bytes: zip, entries }, { bytes: zip, entries })).toEqual({
    old: [],
    new: [],
    changed: 0,
    reproduced: 0,
  });
});
