/**
 * Writes ZIP archives in memory: the ARDELTA2 shared vectors' small archives
 * (ops/protocol/delta2-vectors.ts) and the tests' (test/helpers/apk/build-zip.ts, the fuzzers'
 * rewritten fixtures) share this one writer. Every field can be made to lie: declared sizes and
 * CRC (both headers), or one header disagreeing with the other.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  name: Buffer;
  method: number;
  data: Buffer;
  /** Raw bytes written instead of compressing `data` (keeps a fixture's exact encoding). */
  raw?: Buffer;
  extra?: Buffer;
  flags?: number;
  /** Declared sizes and CRC written instead of the true ones (both headers). */
  declared?: { compressedSize?: number; uncompressedSize?: number; crc?: number };
  /** Written in the local header only, over the above. */
  local?: { name?: Buffer; uncompressedSize?: number };
  /** Written in the central directory record only, over the above. */
  central?: { method?: number; uncompressedSize?: number };
}

export interface ZipSpec {
  entries: ZipEntrySpec[];
  /** Bytes between the last entry and the central directory (e.g. an APK Signing Block). */
  beforeCd: Buffer;
  comment: Buffer;
}

const SIG_LFH = 0x04034b50;
const SIG_CD = 0x02014b50;
const SIG_EOCD = 0x06054b50;

/** Writes the archive; `recordCount` overrides the EOCD's count of records. */
export function writeZip(zip: ZipSpec, opts: { recordCount?: number } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of zip.entries) {
    const body = e.raw ?? (e.method === 0 ? e.data : deflateRawSync(e.data, { level: 1 }));
    const extra = e.extra ?? Buffer.alloc(0);
    const crc = e.declared?.crc ?? crc32(e.data);
    const csize = e.declared?.compressedSize ?? body.length;
    const usize = e.declared?.uncompressedSize ?? e.data.length;
    const localName = e.local?.name ?? e.name;
    const lfh = Buffer.alloc(30);
    lfh.writeUInt32LE(SIG_LFH, 0);
    lfh.writeUInt16LE(20, 4);
    lfh.writeUInt16LE(e.flags ?? 0, 6);
    lfh.writeUInt16LE(e.method, 8);
    lfh.writeUInt32LE(crc >>> 0, 14);
    lfh.writeUInt32LE(csize >>> 0, 18);
    lfh.writeUInt32LE((e.local?.uncompressedSize ?? usize) >>> 0, 22);
    lfh.writeUInt16LE(localName.length & 0xffff, 26);
    lfh.writeUInt16LE(extra.length & 0xffff, 28);
    locals.push(lfh, localName, extra, body);
    const cdr = Buffer.alloc(46);
    cdr.writeUInt32LE(SIG_CD, 0);
    cdr.writeUInt16LE(20, 4);
    cdr.writeUInt16LE(20, 6);
    cdr.writeUInt16LE(e.flags ?? 0, 8);
    cdr.writeUInt16LE(e.central?.method ?? e.method, 10);
    cdr.writeUInt32LE(crc >>> 0, 16);
    cdr.writeUInt32LE(csize >>> 0, 20);
    cdr.writeUInt32LE((e.central?.uncompressedSize ?? usize) >>> 0, 24);
    cdr.writeUInt16LE(e.name.length & 0xffff, 28);
    cdr.writeUInt16LE(extra.length & 0xffff, 30);
    cdr.writeUInt32LE(offset >>> 0, 42);
    centrals.push(cdr, e.name, extra);
    offset += 30 + localName.length + extra.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  const count = (opts.recordCount ?? zip.entries.length) & 0xffff;
  eocd.writeUInt32LE(SIG_EOCD, 0);
  eocd.writeUInt16LE(count, 8);
  eocd.writeUInt16LE(count, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset + zip.beforeCd.length, 16);
  eocd.writeUInt16LE(zip.comment.length & 0xffff, 20);
  return Buffer.concat([...locals, zip.beforeCd, cd, eocd, zip.comment]);
}
