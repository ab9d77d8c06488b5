/**
 * The ARDELTA1 shared vectors (device-client/protocol/vectors/delta-vectors.json, docs/
 * delta-updates.md): literal old and new files with the patch the generator makes for them (zlib
 * at level 9 by Node's zlib), a hand-built patch for bsdiff's zero rule, and hand-built bad
 * patches, each with the one word that names its refusal. The TS tests and the Java core apply
 * every vector and require the exact bytes and hashes, or a refusal. Written by
 * `npm run protocol:vectors` beside protocol-vectors.json.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { generatePatch } from '../../device-client/protocol/delta/generate-patch';
import {
  encodeHeader,
  encodeRecordHeader,
  type DeltaErrorCode,
} from '../../device-client/protocol/delta/format';

/** The file, from the repository's root. */
export const DELTA_VECTORS_FILE = 'device-client/protocol/vectors/delta-vectors.json';

const OLD = Buffer.from(
  'apkrelay delta vector: the quick brown fox jumps over the lazy dog; ' +
    'PACK MY BOX WITH FIVE DOZEN LIQUOR JUGS. 0123456789 end.',
);

function withByte(bytes: Buffer, at: number, value: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = value;
  return copy;
}

/** [name, old, new]: the generator makes each patch. */
const PAIRS: ReadonlyArray<readonly [string, Buffer, Buffer]> = [
  ['identical files', OLD, OLD],
  ['one byte changed', OLD, withByte(OLD, 30, 0x46)],
  [
    'insertion in the middle',
    OLD,
    Buffer.concat([
      OLD.subarray(0, 60),
      Buffer.from(' [INSERTED 25 BYTES HERE] '),
      OLD.subarray(60),
    ]),
  ],
  ['new file shorter', OLD, Buffer.concat([OLD.subarray(0, 20), OLD.subarray(70)])],
  ['new file longer', OLD, Buffer.concat([OLD, Buffer.from(' and a tail '), OLD.subarray(0, 40)])],
  ['empty new file', OLD, Buffer.alloc(0)],
  ['empty old file', Buffer.alloc(0), Buffer.from('all of it is extra')],
  ['unrelated files', OLD, Buffer.from([...Array(64).keys()].map((i) => (i * 37) & 0xff))],
];

function record(diff: number[], extra: number[], seek: number): Buffer {
  return Buffer.concat([
    encodeRecordHeader(diff.length, extra.length, seek),
    Buffer.from(diff),
    Buffer.from(extra),
  ]);
}

const patchOf = (...parts: Uint8Array[]): Buffer => deflateSync(Buffer.concat(parts), { level: 9 });

/** Old "AB" (0x41 0x42): seek to -1, diff 3 bytes over old -1, 0, 1 (0 + 1, 0x41 + 1, 0x42 + 1). */
const OUTSIDE_OLD = patchOf(encodeHeader(3), record([], [], -1), record([1, 1, 1], [], 0));

/** [name, old, patch, error]: each must be refused. */
function badPatches(): ReadonlyArray<readonly [string, Buffer, Buffer, DeltaErrorCode]> {
  const good = Buffer.concat([encodeHeader(2), record([0, 0], [], 0)]);
  const wrongMagic = Buffer.from(good);
  wrongMagic[7] = 0x32;
  const validZlib = deflateSync(good);
  const corrupt = Buffer.from(validZlib);
  corrupt[corrupt.length - 1]! ^= 0xff; // the Adler-32 no longer matches
  return [
    ['wrong magic', OLD, deflateSync(wrongMagic), 'magic'],
    [
      'truncated: ends inside a record',
      OLD,
      patchOf(good.subarray(0, good.length - 1)),
      'truncated',
    ],
    ['truncated: no record for the announced size', OLD, patchOf(encodeHeader(5)), 'truncated'],
    ['trailing bytes after the last record', OLD, patchOf(good, Uint8Array.of(0)), 'trailing'],
    [
      'a record past the new size',
      OLD,
      patchOf(encodeHeader(2), record([0, 0], [7], 0)),
      'overrun',
    ],
    ['corrupt zlib', OLD, corrupt, 'corrupt'],
    ['not zlib at all', OLD, Buffer.from('ARDELTA1 plain text'), 'corrupt'],
    [
      'oldPos beyond 2^62',
      OLD,
      patchOf(encodeHeader(2), record([], [], 2 ** 62), record([], [], 1), record([0, 0], [], 0)),
      'seek',
    ],
  ];
}

function good(name: string, old: Buffer, patch: Buffer, target: Buffer) {
  return {
    name,
    old: old.toString('base64'),
    patch: patch.toString('base64'),
    new: target.toString('base64'),
    newMd5: createHash('md5').update(target).digest('hex'),
    newSha256: createHash('sha256').update(target).digest('hex'),
  };
}

export function deltaVectors() {
  const generated = PAIRS.map(([name, old, target]) => {
    const chunks: Uint8Array[] = [];
    generatePatch(old, target, (c) => chunks.push(c));
    return good(name, old, patchOf(...chunks), target);
  });
  const outside = good(
    'old positions outside the file read as 0',
    Buffer.from('AB'),
    OUTSIDE_OLD,
    Buffer.from([1, 0x42, 0x43]),
  );
  const bad = badPatches().map(([name, old, patch, error]) => ({
    name,
    old: old.toString('base64'),
    patch: patch.toString('base64'),
    error,
  }));
  return { format: 'ARDELTA1', vectors: [...generated, outside, ...bad] };
}

export function deltaVectorsText(): string {
  return `${JSON.stringify(deltaVectors(), null, 2)}\n`;
}
