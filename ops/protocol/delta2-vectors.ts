/**
 * The ARDELTA2 shared vectors (device-client/protocol/vectors/delta2-vectors.json, docs/
 * delta-updates.md): small real ZIPs whose entries pako deflated at several levels and strategies
 * (pako 2.1.0 is zlib 1.2.13 byte for byte), one stored, some changed, one unchanged, one new, with
 * the patch the server's generator makes for each pair; then hand-built bad patches, each with the
 * one word that names its refusal. The TS tests and the Java core apply every vector and require
 * the exact bytes and hashes, or the refusal. Written by `npm run protocol:vectors`.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { deflateRaw } from 'pako';
import { encodeRecordHeader, type DeltaErrorCode } from '../../device-client/protocol/delta/format';
import { encodePlan, type Delta2Plan } from '../../device-client/protocol/delta/format2';
import { generatePatch2 } from '../../device-client/protocol/delta/generate-patch2';
import { readApkEntries } from '../../shared/delta/apk-entries';
import { chooseRanges } from '../../shared/delta/choose-ranges';
import { writeZip } from './zip-writer';

/** The file, from the repository's root. */
export const DELTA2_VECTORS_FILE = 'device-client/protocol/vectors/delta2-vectors.json';

type Setting = { level: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9; strategy?: 0 | 1 | 2 | 3 | 4 };

/** An entry: its name, its bytes, and pako's setting (none: stored). */
type Entry = readonly [name: string, data: Buffer, setting?: Setting];

function text(lines: number, salt: string): Buffer {
  const rows = Array.from({ length: lines }, (_, i) => `${salt} ${i} ${(i * 7919) % 1009}\n`);
  return Buffer.from(rows.join(''));
}

function zipOf(entries: readonly Entry[]): Buffer {
  return writeZip({
    entries: entries.map(([name, data, setting]) => ({
      name: Buffer.from(name),
      method: setting === undefined ? 0 : 8,
      data,
      ...(setting === undefined ? {} : { raw: Buffer.from(deflateRaw(data, setting)) }),
    })),
    beforeCd: Buffer.from('APK Sig Block 42 stand-in'),
    comment: Buffer.alloc(0),
  });
}

const DEX = text(300, 'dex');
const DEX2 = Buffer.concat([DEX.subarray(0, 4000), Buffer.from('new method'), DEX.subarray(4000)]);
const RES = text(120, 'res');
const ASSET = text(80, 'asset');

/** [name, old entries, new entries]: the server's generator makes each patch. */
const PAIRS: ReadonlyArray<readonly [string, Entry[], Entry[]]> = [
  [
    'changed, unchanged and stored entries',
    [
      ['classes.dex', DEX, { level: 6 }],
      ['resources.arsc', RES, { level: 9, strategy: 1 }],
      ['META-INF/stored.txt', Buffer.from('stored v1')],
    ],
    [
      ['classes.dex', DEX2, { level: 6 }],
      ['resources.arsc', RES, { level: 9, strategy: 1 }],
      ['META-INF/stored.txt', Buffer.from('stored v2')],
    ],
  ],
  [
    'levels 1 and 9, filtered, huffman-only, rle and fixed',
    [
      ['a', ASSET, { level: 1 }],
      ['b', RES, { level: 9 }],
      ['c', DEX, { level: 6, strategy: 2 }],
      ['d', RES, { level: 6, strategy: 3 }],
      ['e', ASSET, { level: 6, strategy: 4 }],
    ],
    [
      ['a', text(81, 'asset'), { level: 1 }],
      ['b', text(121, 'res'), { level: 9, strategy: 1 }],
      ['c', DEX2, { level: 6, strategy: 2 }],
      ['d', text(119, 'res'), { level: 6, strategy: 3 }],
      ['e', text(79, 'asset'), { level: 6, strategy: 4 }],
    ],
  ],
  [
    'a new entry and an empty one',
    [['classes.dex', DEX, { level: 6 }]],
    [
      ['classes.dex', DEX2, { level: 6 }],
      ['assets/new.txt', ASSET, { level: 9 }],
      ['empty', Buffer.alloc(0), { level: 6 }],
    ],
  ],
];

function hashes(bytes: Buffer) {
  return {
    newMd5: createHash('md5').update(bytes).digest('hex'),
    newSha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

async function generated(name: string, oldEntries: Entry[], newEntries: Entry[]) {
  const [old, next] = [zipOf(oldEntries), zipOf(newEntries)];
  const choice = chooseRanges(
    { bytes: old, entries: (await readApkEntries(old))! },
    { bytes: next, entries: (await readApkEntries(next))! },
  );
  const chunks: Uint8Array[] = [];
  generatePatch2(old, next, choice, (c) => chunks.push(c));
  const patch = deflateSync(Buffer.concat(chunks), { level: 9 });
  return {
    name,
    old: old.toString('base64'),
    patch: patch.toString('base64'),
    new: next.toString('base64'),
    ...hashes(next),
  };
}

const patchOf = (...parts: Uint8Array[]): Buffer => deflateSync(Buffer.concat(parts), { level: 9 });

const record = (diff: number[], extra: Buffer | number[], seek: number): Buffer =>
  Buffer.concat([
    encodeRecordHeader(diff.length, extra.length, seek),
    Buffer.from(diff),
    Buffer.from(extra),
  ]);

/** "ab", then "hello" raw-deflated by zlib 1.2.13 at level 6. */
const OLD = Buffer.from('6162cb48cdc9c90700', 'hex');
const HELLO = { offset: 2, inflatedLength: 5, level: 6, strategy: 0, memLevel: 8, windowBits: 15 };

function plan(fields: Partial<Delta2Plan>): Uint8Array {
  return encodePlan({ newSize: 0, oldRanges: [], newRanges: [], dfNewSize: 0, ...fields });
}

/** [name, patch, error]: each must be refused, applied to OLD. */
function badPatches(): ReadonlyArray<readonly [string, Buffer, DeltaErrorCode]> {
  const abHello = record([], Buffer.from('abhello'), 0);
  const oldRange = (length: number, inflatedLength: number) =>
    plan({ oldRanges: [{ offset: 2, length, inflatedLength }] });
  const corrupt = patchOf(plan({ newSize: 1, dfNewSize: 1 }), record([], [1], 0));
  corrupt[corrupt.length - 1]! ^= 0xff;
  return [
    ['an ARDELTA1 magic', patchOf(Buffer.from('ARDELTA1'), Buffer.alloc(8)), 'magic'],
    ['truncated: ends inside the plan', patchOf(oldRange(7, 5).subarray(0, 30)), 'truncated'],
    ['an old range outside the old file', patchOf(oldRange(8, 5)), 'plan'],
    ['an old range inflating to another length', patchOf(oldRange(7, 4)), 'plan'],
    ['an old range ending inside its stream', patchOf(oldRange(6, 5)), 'plan'],
    [
      'an old range that is not deflate data',
      patchOf(plan({ oldRanges: [{ offset: 0, length: 2, inflatedLength: 2 }] })),
      'plan',
    ],
    [
      'level 0',
      patchOf(plan({ newSize: 9, newRanges: [{ ...HELLO, level: 0 }], dfNewSize: 7 }), abHello),
      'plan',
    ],
    [
      'new ranges overlapping',
      patchOf(plan({ newRanges: [HELLO, { ...HELLO, offset: 3 }], dfNewSize: 8 })),
      'plan',
    ],
    [
      'a new range past dfNew',
      patchOf(plan({ newSize: 9, newRanges: [HELLO], dfNewSize: 6 })),
      'plan',
    ],
    [
      'a final file of another size than announced',
      patchOf(plan({ newSize: 10, newRanges: [HELLO], dfNewSize: 7 }), abHello),
      'size',
    ],
    [
      'a record past dfNew',
      patchOf(plan({ newSize: 1, dfNewSize: 1 }), record([], [1, 2], 0)),
      'overrun',
    ],
    [
      'trailing bytes after the last record',
      patchOf(plan({ newSize: 1, dfNewSize: 1 }), record([], [1], 0), Uint8Array.of(0)),
      'trailing',
    ],
    ['corrupt zlib', corrupt, 'corrupt'],
    [
      'oldPos beyond 2^62',
      patchOf(
        plan({ newSize: 1, dfNewSize: 1 }),
        record([], [], 2 ** 62),
        record([], [], 1),
        record([0], [], 0),
      ),
      'seek',
    ],
  ];
}

export async function delta2Vectors() {
  const good = [];
  for (const [name, old, next] of PAIRS) good.push(await generated(name, old, next));
  const hello = Buffer.from('6162cb48cdc9c90700', 'hex');
  const handMade = {
    name: 'a hand-made plan: inflate "hello", copy it, recompress it at level 6',
    old: OLD.toString('base64'),
    patch: patchOf(
      plan({
        newSize: 9,
        oldRanges: [{ offset: 2, length: 7, inflatedLength: 5 }],
        newRanges: [HELLO],
        dfNewSize: 7,
      }),
      record([0, 0, 0, 0, 0, 0, 0], [], 0),
    ).toString('base64'),
    new: hello.toString('base64'),
    ...hashes(hello),
  };
  const bad = badPatches().map(([name, patch, error]) => ({
    name,
    old: OLD.toString('base64'),
    patch: patch.toString('base64'),
    error,
  }));
  return { format: 'ARDELTA2', vectors: [...good, handMade, ...bad] };
}

export async function delta2VectorsText(): Promise<string> {
  return `${JSON.stringify(await delta2Vectors(), null, 2)}\n`;
}
