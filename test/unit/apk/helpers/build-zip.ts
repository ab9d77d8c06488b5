/** Builds small ZIP archives in memory for tests (stored or deflated entries, optional tweaks). */
import { crc32, deflateRawSync } from 'node:zlib';

export interface TestZipEntry {
  name: string | Buffer;
  data: Buffer;
  deflate?: boolean;
  /** Overrides applied to the local header only. */
  localName?: string;
  localUncompressedSize?: number;
  /** Overrides applied to the central directory record only. */
  cdUncompressedSize?: number;
  cdMethod?: number;
}

export function buildZip(
  entries: TestZipEntry[],
  opts: { comment?: Buffer; recordCount?: number; beforeCd?: Buffer } = {},
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = typeof e.name === 'string' ? Buffer.from(e.name, 'utf8') : e.name;
    const localName = e.localName === undefined ? name : Buffer.from(e.localName, 'utf8');
    const body = e.deflate ? deflateRawSync(e.data) : e.data;
    const method = e.deflate ? 8 : 0;
    const crc = crc32(e.data);
    const lfh = Buffer.alloc(30);
    lfh.writeUInt32LE(0x04034b50, 0);
    lfh.writeUInt16LE(20, 4);
    lfh.writeUInt16LE(method, 8);
    lfh.writeUInt32LE(crc, 14);
    lfh.writeUInt32LE(body.length, 18);
    lfh.writeUInt32LE(e.localUncompressedSize ?? e.data.length, 22);
    lfh.writeUInt16LE(localName.length, 26);
    locals.push(lfh, localName, body);
    const cdr = Buffer.alloc(46);
    cdr.writeUInt32LE(0x02014b50, 0);
    cdr.writeUInt16LE(20, 4);
    cdr.writeUInt16LE(20, 6);
    cdr.writeUInt16LE(e.cdMethod ?? method, 10);
    cdr.writeUInt32LE(crc, 16);
    cdr.writeUInt32LE(body.length, 20);
    cdr.writeUInt32LE(e.cdUncompressedSize ?? e.data.length, 24);
    cdr.writeUInt16LE(name.length, 28);
    cdr.writeUInt32LE(offset, 42);
    centrals.push(cdr, name);
    offset += 30 + localName.length + body.length;
  }
  const before = opts.beforeCd ?? Buffer.alloc(0);
  const cd = Buffer.concat(centrals);
  const comment = opts.comment ?? Buffer.alloc(0);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  const count = opts.recordCount ?? entries.length;
  eocd.writeUInt16LE(count, 8);
  eocd.writeUInt16LE(count, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset + before.length, 16);
  eocd.writeUInt16LE(comment.length, 20);
  return Buffer.concat([...locals, before, cd, eocd, comment]);
}
