/**
 * ZIP-aware mutations of a well-formed APK: header fields of the EOCD, central directory records
 * and local headers (sizes, offsets, counts, name lengths), huge declared sizes, ZIP64 markers and
 * records, overlapping and duplicate entries, zip bombs with a high ratio, and whole-archive
 * rewrites (entries dropped, repeated, renamed, data descriptors, junk extra fields).
 */
import { deflateRawSync } from 'node:zlib';
import { interestingValue, type Rng } from './random';
import { SIG, readModel, writeModel, type ModelEntry, type ZipLayout } from './zip-layout';

export interface Mutant {
  readonly bytes: Buffer;
  /** Which mutator made it (for statistics and failure reports). */
  readonly how: string;
}

type Width = 2 | 4;
type Field = readonly [offset: number, width: Width];

const EOCD_FIELDS: Field[] = [
  [4, 2],
  [6, 2],
  [8, 2],
  [10, 2],
  [12, 4],
  [16, 4],
  [20, 2],
];
const CD_FIELDS: Field[] = [
  [0, 4],
  [6, 2],
  [8, 2],
  [10, 2],
  [16, 4],
  [20, 4],
  [24, 4],
  [28, 2],
  [30, 2],
  [32, 2],
  [34, 2],
  [42, 4],
];
const LFH_FIELDS: Field[] = [
  [0, 4],
  [6, 2],
  [8, 2],
  [14, 4],
  [18, 4],
  [22, 4],
  [26, 2],
  [28, 2],
];

function setField(rng: Rng, buf: Buffer, at: number, width: Width, value?: number): void {
  if (at < 0 || at + width > buf.length) return;
  if (width === 2)
    buf.writeUInt16LE((value ?? interestingValue(rng, 16, buf.readUInt16LE(at))) & 0xffff, at);
  else buf.writeUInt32LE((value ?? interestingValue(rng, 32, buf.readUInt32LE(at))) >>> 0, at);
}

/** Bomb payloads: raw deflate of `n` MiB of one byte, built once per worker. */
const bombCache = new Map<number, Buffer>();
export function bombPayload(mib: number): Buffer {
  let b = bombCache.get(mib);
  if (b === undefined) {
    b = deflateRawSync(Buffer.alloc(mib * 1024 * 1024, 0x61), { level: 9 });
    bombCache.set(mib, b);
  }
  return b;
}

const HUGE_SIZES = [
  0x7fffffff,
  0x80000000,
  0xfffffffe,
  0xffffffff,
  2 ** 31 + 1,
  0x40000000,
  64 * 1024 * 1024 + 1,
  32 * 1024 * 1024 + 1,
  1024 * 1024 + 1,
];

function mutateEocd(rng: Rng, buf: Buffer, l: ZipLayout): string {
  const [off, w] = rng.pick(EOCD_FIELDS);
  setField(rng, buf, l.eocdOffset + off, w);
  return `eocd+${off}`;
}

function mutateCd(rng: Rng, buf: Buffer, l: ZipLayout): string {
  const r = rng.pick(l.records);
  const [off, w] = rng.pick(CD_FIELDS);
  setField(rng, buf, r.offset + off, w);
  return `cd+${off}`;
}

function mutateLfh(rng: Rng, buf: Buffer, l: ZipLayout): string {
  const h = rng.pick(l.lfhs);
  const [off, w] = rng.pick(LFH_FIELDS);
  setField(rng, buf, h.offset + off, w);
  return `lfh+${off}`;
}

/** Huge sizes declared consistently in both headers, so the local header check passes. */
function hugeDeclaredSize(rng: Rng, buf: Buffer, l: ZipLayout): string {
  const i = rng.int(l.records.length);
  const r = l.records[i];
  const h = l.lfhs[i];
  if (r === undefined || h === undefined) return 'huge:none';
  const size = rng.pick(HUGE_SIZES);
  const which = rng.int(3);
  if (which !== 1) {
    buf.writeUInt32LE(size >>> 0, r.offset + 24);
    buf.writeUInt32LE(size >>> 0, h.offset + 22);
  }
  if (which !== 0) {
    const c = rng.chance(0.5) ? size : rng.pick([1, 100, 0x10000, 0x100000]);
    buf.writeUInt32LE(c >>> 0, r.offset + 20);
    buf.writeUInt32LE(c >>> 0, h.offset + 18);
  }
  if (rng.chance(0.3)) buf.writeUInt16LE(8, r.offset + 10);
  return `huge-size:${which}`;
}

/** Entries whose data overlap: shared local headers, or data stretched over the next entry. */
function overlap(rng: Rng, buf: Buffer, l: ZipLayout): string {
  if (l.records.length < 2) return 'overlap:none';
  const i = rng.int(l.records.length);
  let j = rng.int(l.records.length - 1);
  if (j >= i) j++;
  const a = l.records[i];
  const b = l.records[j];
  const ha = l.lfhs[i];
  if (a === undefined || b === undefined || ha === undefined) return 'overlap:none';
  switch (rng.int(3)) {
    case 0:
      buf.writeUInt32LE(a.localHeaderOffset, b.offset + 42);
      return 'overlap:same-header';
    case 1: {
      const stretch = Math.max(0, l.cdOffset - ha.dataOffset - rng.int(64));
      for (const [off, lfhOff] of [
        [20, 18],
        [24, 22],
      ] as const) {
        buf.writeUInt32LE(stretch, a.offset + off);
        buf.writeUInt32LE(stretch, ha.offset + lfhOff);
      }
      return 'overlap:stretched';
    }
    default:
      buf.writeUInt32LE(rng.int(l.cdOffset + 1), b.offset + 42);
      return 'overlap:random-offset';
  }
}

/** A record's name made equal to another's (same length: in place; else by rewriting). */
function duplicateName(rng: Rng, buf: Buffer, l: ZipLayout): Buffer | string {
  const i = rng.int(l.records.length);
  const a = l.records[i];
  const same = l.records.findIndex((r, k) => k !== i && r.name.length === a?.name.length);
  const b = l.records[same];
  const hb = l.lfhs[same];
  if (a !== undefined && b !== undefined && hb !== undefined) {
    a.name.copy(buf, b.offset + 46);
    if (rng.chance(0.7)) a.name.copy(buf, hb.offset + 30);
    return 'dup-name:in-place';
  }
  return 'dup-name:none';
}

/** ZIP64 markers in the EOCD or a record, or a ZIP64 EOCD record and locator. */
function zip64(rng: Rng, buf: Buffer, l: ZipLayout): Buffer | string {
  switch (rng.int(4)) {
    case 0:
      buf.writeUInt16LE(0xffff, l.eocdOffset + 10);
      buf.writeUInt16LE(0xffff, l.eocdOffset + 8);
      if (rng.chance(0.5)) buf.writeUInt32LE(0xffffffff, l.eocdOffset + 12);
      if (rng.chance(0.5)) buf.writeUInt32LE(0xffffffff, l.eocdOffset + 16);
      return 'zip64:eocd-markers';
    case 1: {
      const r = rng.pick(l.records);
      buf.writeUInt32LE(0xffffffff, r.offset + rng.pick([20, 24, 42]));
      return 'zip64:record-marker';
    }
    default: {
      const rec = Buffer.alloc(56);
      rec.writeUInt32LE(SIG.ZIP64_EOCD, 0);
      rec.writeBigUInt64LE(44n, 4);
      rec.writeBigUInt64LE(BigInt(rng.pick([1, 0xffff, 0xffffffff, 2 ** 40])), 24);
      rec.writeBigUInt64LE(BigInt(rng.pick([1, 0xffff, 0xffffffff, 2 ** 40])), 32);
      rec.writeBigUInt64LE(BigInt(rng.pick([0, 2 ** 53 - 1, 0xffffffff])), 40);
      rec.writeBigUInt64LE(BigInt(rng.pick([0, 2 ** 53 - 1, l.cdOffset])), 48);
      const loc = Buffer.alloc(20);
      loc.writeUInt32LE(SIG.ZIP64_LOCATOR, 0);
      loc.writeBigUInt64LE(BigInt(rng.pick([l.eocdOffset, 0, 2 ** 53 - 1])), 8);
      loc.writeUInt32LE(rng.pick([1, 0, 0xffffffff]), 16);
      return Buffer.concat([
        buf.subarray(0, l.eocdOffset),
        rng.chance(0.5) ? rec : Buffer.alloc(0),
        loc,
        buf.subarray(l.eocdOffset),
      ]);
    }
  }
}

function zip64Extra(rng: Rng): Buffer {
  const values = rng.range(0, 4);
  const extra = Buffer.alloc(4 + values * 8);
  extra.writeUInt16LE(0x0001, 0);
  extra.writeUInt16LE(rng.chance(0.8) ? values * 8 : interestingValue(rng, 16), 2);
  for (let i = 0; i < values; i++) {
    extra.writeBigUInt64LE(BigInt(rng.pick([0, 1, 0xffffffff, 2 ** 32, 2 ** 53 - 1])), 4 + i * 8);
  }
  return extra;
}

function bombEntry(rng: Rng, e: ModelEntry): string {
  const mib = rng.pick([4, 16, 64]);
  const payload = bombPayload(mib);
  const real = mib * 1024 * 1024;
  const declared = rng.pick([
    real,
    1024 * 1024,
    1024 * 1024 - 1,
    rng.range(1, 4096),
    real * 2,
    0x7fffffff,
  ]);
  e.method = 8;
  e.raw = payload;
  e.data = Buffer.alloc(0);
  e.declared = { uncompressedSize: declared, crc: rng.u32() };
  if (rng.chance(0.3)) e.declared.compressedSize = rng.pick([payload.length * 300, 0x7fffffff]);
  return `bomb:${mib}MiB-declared-${declared}`;
}

const NAMES = [
  'AndroidManifest.xml',
  'META-INF/MANIFEST.MF',
  'META-INF/CERT.SF',
  'META-INF/CERT.RSA',
  'classes.dex',
  '../../etc/passwd',
  '/abs',
  'a\u0000b',
  'META-INF/',
  '',
];

/** Rewrites the archive from its model with entries changed. */
function rewrite(rng: Rng, original: Buffer): Mutant | null {
  const model = readModel(original);
  if (model === null || model.entries.length === 0) return null;
  const entries = model.entries;
  const pickEntry = (): ModelEntry =>
    rng.chance(0.4)
      ? (entries.find((e) => e.name.toString() === 'AndroidManifest.xml') ?? rng.pick(entries))
      : rng.pick(entries);
  let how: string;
  let recordCount: number | undefined;
  switch (rng.int(11)) {
    case 0:
      how = bombEntry(rng, pickEntry());
      break;
    case 1: {
      const e = pickEntry();
      entries.push({ ...e, data: rng.chance(0.5) ? e.data : rng.bytes(rng.int(64)) });
      how = 'rewrite:duplicate-entry';
      break;
    }
    case 2:
      entries.splice(rng.int(entries.length), 1);
      how = 'rewrite:drop-entry';
      break;
    case 3: {
      const e = pickEntry();
      const name = rng.pick(NAMES);
      e.name = rng.chance(0.1)
        ? Buffer.alloc(rng.pick([255, 4096, 65535]), 0x61)
        : rng.chance(0.1)
          ? Buffer.from([0xc3, 0x28, 0xff, 0xfe])
          : Buffer.from(name);
      how = 'rewrite:rename';
      break;
    }
    case 4: {
      const e = pickEntry();
      e.flags = 0x08 | (rng.chance(0.5) ? 0x800 : 0);
      if (rng.chance(0.5)) e.declared = { crc: 0, compressedSize: 0, uncompressedSize: 0 };
      how = 'rewrite:data-descriptor';
      break;
    }
    case 5: {
      const e = pickEntry();
      e.extra = rng.chance(0.5) ? zip64Extra(rng) : rng.bytes(rng.pick([3, 4, 100, 65535]));
      how = 'rewrite:extra-field';
      break;
    }
    case 6: {
      const e = pickEntry();
      e.method = rng.pick([0, 8, 1, 12, 14, 99, 0xffff]);
      if (rng.chance(0.5)) delete e.raw;
      how = `rewrite:method-${e.method}`;
      break;
    }
    case 7: {
      const n = rng.pick([300, 1000, 5000]);
      for (let i = 0; i < n; i++)
        entries.push({ name: Buffer.from(`f/${i}`), method: 0, data: Buffer.alloc(0) });
      how = `rewrite:${n}-entries`;
      break;
    }
    case 8:
      recordCount = rng.pick([0, entries.length + 1, entries.length - 1, 0xffff]);
      how = 'rewrite:record-count';
      break;
    case 9:
      model.comment = rng.chance(0.5) ? rng.bytes(rng.int(0xffff)) : Buffer.alloc(0xffff - 22);
      if (rng.chance(0.5)) {
        // A second, fake EOCD inside the comment.
        const fake = Buffer.alloc(22);
        fake.writeUInt32LE(SIG.EOCD, 0);
        fake.writeUInt32LE(rng.u32(), 12);
        fake.writeUInt32LE(rng.u32(), 16);
        fake.copy(model.comment, rng.int(Math.max(1, model.comment.length - 22)));
      }
      how = 'rewrite:comment';
      break;
    default: {
      const e = pickEntry();
      e.data = rng.bytes(rng.int(2048));
      delete e.raw;
      how = 'rewrite:data';
      break;
    }
  }
  return { bytes: writeModel(model, recordCount === undefined ? {} : { recordCount }), how };
}

/** One ZIP-aware mutation of `original`, whose layout is `layout`. */
export function mutateZip(rng: Rng, original: Buffer, layout: ZipLayout): Mutant {
  if (rng.chance(0.25)) {
    const m = rewrite(rng, original);
    if (m !== null) return m;
  }
  const buf = Buffer.from(original);
  const steps = rng.chance(0.7) ? 1 : rng.range(2, 4);
  const hows: string[] = [];
  let out: Buffer = buf;
  for (let s = 0; s < steps; s++) {
    const op = rng.weighted<(r: Rng, b: Buffer, l: ZipLayout) => Buffer | string>([
      [3, mutateEocd],
      [5, mutateCd],
      [4, mutateLfh],
      [2, hugeDeclaredSize],
      [2, overlap],
      [1, duplicateName],
      [1, zip64],
    ]);
    const r = op(rng, out, layout);
    if (typeof r === 'string') hows.push(r);
    else {
      out = r;
      hows.push('zip64:records');
      break; // offsets moved: later field mutations would miss
    }
  }
  return { bytes: out, how: hows.join(',') };
}
