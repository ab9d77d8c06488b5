/**
 * Where the structures of a well-formed APK lie (EOCD, central directory records, local headers,
 * APK Signing Block), and a small model of its entries that can be changed and written back as a
 * consistent archive. The fuzzers use it to aim mutations at fields rather than at random bytes.
 * Only ever applied to the seed fixtures, which are valid; mutated bytes are never parsed here.
 */
import { inflateRawSync } from 'node:zlib';
import { writeZip, type ZipEntrySpec, type ZipSpec } from '../../../helpers/apk/build-zip';

export const SIG = {
  LFH: 0x04034b50,
  CD: 0x02014b50,
  EOCD: 0x06054b50,
  ZIP64_EOCD: 0x06064b50,
  ZIP64_LOCATOR: 0x07064b50,
  DATA_DESCRIPTOR: 0x08074b50,
} as const;

export interface CdRecordLayout {
  /** Offset of the record in the file. */
  readonly offset: number;
  readonly size: number;
  readonly name: Buffer;
  readonly method: number;
  readonly flags: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly localHeaderOffset: number;
}

export interface LfhLayout {
  readonly offset: number;
  readonly nameLength: number;
  readonly extraLength: number;
  readonly dataOffset: number;
}

export interface ZipLayout {
  readonly eocdOffset: number;
  readonly cdOffset: number;
  readonly cdSize: number;
  readonly records: readonly CdRecordLayout[];
  readonly lfhs: readonly LfhLayout[];
  /** The APK Signing Block, when present: [offset, offset + size). */
  readonly signingBlock: { readonly offset: number; readonly size: number } | null;
}

const SIGNING_MAGIC = Buffer.from('APK Sig Block 42', 'latin1');

export function findEocd(buf: Buffer): number {
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - 22 - 0xffff); at--) {
    if (buf.readUInt32LE(at) === SIG.EOCD && buf.readUInt16LE(at + 20) === buf.length - at - 22) {
      return at;
    }
  }
  return -1;
}

/** The layout of a well-formed archive, or null when `buf` is not one. */
export function zipLayout(buf: Buffer): ZipLayout | null {
  const eocdOffset = buf.length >= 22 ? findEocd(buf) : -1;
  if (eocdOffset < 0) return null;
  const count = buf.readUInt16LE(eocdOffset + 10);
  const cdSize = buf.readUInt32LE(eocdOffset + 12);
  const cdOffset = buf.readUInt32LE(eocdOffset + 16);
  if (cdOffset + cdSize > eocdOffset) return null;
  const records: CdRecordLayout[] = [];
  const lfhs: LfhLayout[] = [];
  let pos = cdOffset;
  for (let i = 0; i < count; i++) {
    if (pos + 46 > eocdOffset || buf.readUInt32LE(pos) !== SIG.CD) return null;
    const nameLength = buf.readUInt16LE(pos + 28);
    const size = 46 + nameLength + buf.readUInt16LE(pos + 30) + buf.readUInt16LE(pos + 32);
    const localHeaderOffset = buf.readUInt32LE(pos + 42);
    records.push({
      offset: pos,
      size,
      name: Buffer.from(buf.subarray(pos + 46, pos + 46 + nameLength)),
      method: buf.readUInt16LE(pos + 10),
      flags: buf.readUInt16LE(pos + 8),
      crc: buf.readUInt32LE(pos + 16),
      compressedSize: buf.readUInt32LE(pos + 20),
      uncompressedSize: buf.readUInt32LE(pos + 24),
      localHeaderOffset,
    });
    if (localHeaderOffset + 30 > cdOffset || buf.readUInt32LE(localHeaderOffset) !== SIG.LFH)
      return null;
    const lfhName = buf.readUInt16LE(localHeaderOffset + 26);
    const lfhExtra = buf.readUInt16LE(localHeaderOffset + 28);
    lfhs.push({
      offset: localHeaderOffset,
      nameLength: lfhName,
      extraLength: lfhExtra,
      dataOffset: localHeaderOffset + 30 + lfhName + lfhExtra,
    });
    pos += size;
  }
  let signingBlock: ZipLayout['signingBlock'] = null;
  if (cdOffset >= 32 && buf.subarray(cdOffset - 16, cdOffset).equals(SIGNING_MAGIC)) {
    const size = Number(buf.readBigUInt64LE(cdOffset - 24)) + 8;
    if (size <= cdOffset) signingBlock = { offset: cdOffset - size, size };
  }
  return { eocdOffset, cdOffset, cdSize, records, lfhs, signingBlock };
}

/** One entry of the model: its name, method and uncompressed data. */
/** The fuzzers' model of an archive: the shared test ZIP writer's input. */
export type ModelEntry = ZipEntrySpec;
export type ZipModel = ZipSpec;

/** Reads a well-formed archive into a model; null when it is not one. */
export function readModel(buf: Buffer): ZipModel | null {
  const layout = zipLayout(buf);
  if (layout === null) return null;
  const entries: ModelEntry[] = [];
  for (const [i, r] of layout.records.entries()) {
    const lfh = layout.lfhs[i];
    if (lfh === undefined) return null;
    const raw = Buffer.from(buf.subarray(lfh.dataOffset, lfh.dataOffset + r.compressedSize));
    let data: Buffer;
    try {
      data = r.method === 0 ? raw : inflateRawSync(raw);
    } catch {
      return null;
    }
    entries.push({ name: r.name, method: r.method, data, raw });
  }
  const sb = layout.signingBlock;
  return {
    entries,
    beforeCd: sb ? Buffer.from(buf.subarray(sb.offset, sb.offset + sb.size)) : Buffer.alloc(0),
    comment: Buffer.from(buf.subarray(layout.eocdOffset + 22)),
  };
}

/** Writes a model as an archive; `recordCount` overrides the EOCD's count. */
export const writeModel = writeZip;
