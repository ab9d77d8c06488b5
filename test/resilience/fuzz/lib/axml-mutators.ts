/**
 * Android-binary-XML-aware mutations of a compiled AndroidManifest.xml: chunk sizes and header
 * sizes, string pools with absurd counts, offsets and string lengths, element and attribute
 * fields, truncation, duplicated chunks, very deep nesting and huge attribute lists.
 */
import { havoc } from './byte-mutators';
import { interestingValue, type Rng } from './random';

const TYPE_STRING_POOL = 0x0001;
const MAX_INPUT = 8 * 1024 * 1024;
const TYPE_START_ELEMENT = 0x0102;
const TYPE_END_ELEMENT = 0x0103;
const TYPE_RESOURCE_MAP = 0x0180;
const CHUNK_TYPES = [
  0x0000, 0x0001, 0x0003, 0x0100, 0x0101, 0x0102, 0x0103, 0x0104, 0x0180, 0xffff,
];

export interface AxmlChunk {
  readonly offset: number;
  readonly type: number;
  readonly headerSize: number;
  readonly size: number;
}

/** The chunks of the RES_XML body of a well-formed document (and the document chunk itself). */
export function axmlChunks(xml: Buffer): { doc: AxmlChunk; chunks: AxmlChunk[] } | null {
  if (xml.length < 8) return null;
  const doc = {
    offset: 0,
    type: xml.readUInt16LE(0),
    headerSize: xml.readUInt16LE(2),
    size: xml.readUInt32LE(4),
  };
  if (doc.size > xml.length || doc.headerSize < 8) return null;
  const chunks: AxmlChunk[] = [];
  let pos = doc.headerSize;
  while (pos + 8 <= doc.size) {
    const c = {
      offset: pos,
      type: xml.readUInt16LE(pos),
      headerSize: xml.readUInt16LE(pos + 2),
      size: xml.readUInt32LE(pos + 4),
    };
    if (c.size < 8 || pos + c.size > doc.size) break;
    chunks.push(c);
    pos += c.size;
  }
  return { doc, chunks };
}

function set32(rng: Rng, buf: Buffer, at: number, value?: number): void {
  if (at >= 0 && at + 4 <= buf.length)
    buf.writeUInt32LE((value ?? interestingValue(rng, 32, buf.readUInt32LE(at))) >>> 0, at);
}

function set16(rng: Rng, buf: Buffer, at: number, value?: number): void {
  if (at >= 0 && at + 2 <= buf.length)
    buf.writeUInt16LE((value ?? interestingValue(rng, 16, buf.readUInt16LE(at))) & 0xffff, at);
}

function withDocSize(rng: Rng, buf: Buffer): Buffer {
  if (rng.chance(0.85) && buf.length >= 8) buf.writeUInt32LE(buf.length, 4);
  return buf;
}

function ofType(chunks: AxmlChunk[], type: number): AxmlChunk[] {
  return chunks.filter((c) => c.type === type);
}

/** A start element repeated `n` times, nested (no end elements), after the first one. */
function deepNesting(rng: Rng, xml: Buffer, chunks: AxmlChunk[]): Buffer {
  const start = ofType(chunks, TYPE_START_ELEMENT);
  const el = start.length > 0 ? rng.pick(start) : null;
  if (el === null) return xml;
  const copy = xml.subarray(el.offset, el.offset + el.size);
  // Inputs stay under 8 MiB: depth is what matters, not element size.
  const n = Math.min(
    rng.pick([1023, 1024, 1025, 4096, 60000]),
    Math.floor(MAX_INPUT / copy.length),
  );
  const repeated = Buffer.alloc(copy.length * n);
  for (let i = 0; i < n; i++) copy.copy(repeated, i * copy.length);
  const at = el.offset + el.size;
  return withDocSize(rng, Buffer.concat([xml.subarray(0, at), repeated, xml.subarray(at)]));
}

/** A start element declaring up to 65535 attributes. */
function manyAttributes(rng: Rng, xml: Buffer, chunks: AxmlChunk[]): Buffer {
  const start = ofType(chunks, TYPE_START_ELEMENT);
  if (start.length === 0) return xml;
  const el = rng.pick(start);
  const count = rng.pick([1000, 65535]);
  const contents = Buffer.alloc(20 + count * 20);
  xml.copy(contents, 0, el.offset + el.headerSize, el.offset + el.headerSize + 8);
  contents.writeUInt16LE(20, 8);
  contents.writeUInt16LE(20, 10);
  contents.writeUInt16LE(count, 12);
  const attr = Buffer.alloc(20);
  attr.writeUInt32LE(0xffffffff, 0); // no namespace
  attr.writeUInt32LE(0xffffffff, 8); // no raw value
  attr.writeUInt16LE(8, 12);
  attr.writeUInt8(0x10, 15);
  contents.fill(attr, 20);
  for (let k = 0; k < 32; k++) {
    const at = 20 + rng.int(count) * 20;
    contents.writeUInt32LE(rng.chance(0.5) ? rng.int(8) : rng.u32(), at + 4);
    contents.writeUInt8(rng.pick([0x01, 0x03, 0x10, 0x12]), at + 15);
    contents.writeUInt32LE(rng.u32(), at + 16);
  }
  const header = Buffer.from(xml.subarray(el.offset, el.offset + el.headerSize));
  header.writeUInt32LE(header.length + contents.length, 4);
  return withDocSize(
    rng,
    Buffer.concat([
      xml.subarray(0, el.offset),
      header,
      contents,
      xml.subarray(el.offset + el.size),
    ]),
  );
}

function mutateStringPool(rng: Rng, buf: Buffer, pool: AxmlChunk): string {
  const o = pool.offset;
  const count = buf.readUInt32LE(o + 8);
  switch (rng.int(6)) {
    case 0:
      set32(rng, buf, o + 8, rng.pick([0xffffffff, 0x3fffffff, 0x40000000, count + 1, count * 4]));
      return 'pool:count';
    case 1:
      set32(rng, buf, o + 12);
      if (rng.chance(0.5)) set32(rng, buf, o + 24);
      return 'pool:styles';
    case 2:
      buf.writeUInt32LE(
        (buf.readUInt32LE(o + 16) ^ rng.pick([0x100, 0x1, 0xffffffff])) >>> 0,
        o + 16,
      );
      return 'pool:flags';
    case 3:
      set32(rng, buf, o + 20);
      return 'pool:strings-start';
    case 4: {
      if (count === 0) return 'pool:none';
      set32(rng, buf, o + pool.headerSize + 4 * rng.int(count));
      return 'pool:offset';
    }
    default: {
      // A string's length prefix, in the encoding the pool says it uses.
      if (count === 0) return 'pool:none';
      const i = rng.int(count);
      const stringsStart = buf.readUInt32LE(o + 20);
      const at = o + stringsStart + buf.readUInt32LE(o + pool.headerSize + 4 * i);
      if (at + 4 > buf.length) return 'pool:none';
      if ((buf.readUInt32LE(o + 16) & 0x100) !== 0) {
        buf[at + rng.int(2)] = rng.pick([0x7f, 0x80, 0xff, 0x81]);
        if (rng.chance(0.5)) buf[at + 1 + rng.int(2)] = rng.pick([0x80, 0xff]);
      } else {
        set16(rng, buf, at, rng.pick([0x7fff, 0x8000, 0xffff, 0xfffe]));
        if (rng.chance(0.5)) set16(rng, buf, at + 2, rng.pick([0xffff, 0x7fff, 0]));
      }
      return 'pool:string-length';
    }
  }
}

function mutateElement(rng: Rng, buf: Buffer, el: AxmlChunk): string {
  const c = el.offset + el.headerSize;
  if (el.type === TYPE_END_ELEMENT || rng.chance(0.3)) {
    set32(rng, buf, c + rng.pick([0, 4]));
    return 'element:name';
  }
  if (rng.chance(0.4)) {
    const field = rng.pick([8, 10, 12]);
    // Attribute sizes just under the 20 bytes an attribute takes are the interesting ones.
    set16(rng, buf, c + field, field === 10 && rng.chance(0.5) ? rng.range(12, 20) : undefined);
    return 'element:attr-layout';
  }
  const attrStart = buf.readUInt16LE(c + 8);
  const attrSize = buf.readUInt16LE(c + 10);
  const attrCount = buf.readUInt16LE(c + 12);
  if (attrCount === 0) return 'element:none';
  const a = c + attrStart + attrSize * rng.int(attrCount);
  switch (rng.int(4)) {
    case 0:
      set32(rng, buf, a + rng.pick([0, 4, 8]));
      return 'attribute:string-ref';
    case 1:
      if (a + 16 <= buf.length)
        buf[a + 15] = rng.pick([0x00, 0x01, 0x02, 0x03, 0x05, 0x10, 0x11, 0x12, 0x1c, 0xff]);
      return 'attribute:type';
    case 2:
      set32(rng, buf, a + 16);
      return 'attribute:data';
    default:
      set16(rng, buf, a + 12);
      return 'attribute:size';
  }
}

/**
 * One AXML-aware mutation. `xml` may itself be a mutant (mutations are stacked): where its fields
 * no longer describe its layout, the mutation falls back to a structure-blind one.
 */
export function mutateAxml(rng: Rng, xml: Buffer, other?: Buffer): { bytes: Buffer; how: string } {
  try {
    return mutateAxmlChunks(rng, xml, other);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return { bytes: havoc(rng, xml), how: 'axml:havoc-fallback' };
  }
}

function mutateAxmlChunks(rng: Rng, xml: Buffer, other?: Buffer): { bytes: Buffer; how: string } {
  const parsed = axmlChunks(xml);
  if (parsed === null) return { bytes: Buffer.from(xml), how: 'axml:unparsed' };
  const { doc, chunks } = parsed;
  const buf = Buffer.from(xml);
  const all = [doc, ...chunks];
  const pools = ofType(chunks, TYPE_STRING_POOL);
  const elements = chunks.filter(
    (c) => c.type === TYPE_START_ELEMENT || c.type === TYPE_END_ELEMENT,
  );
  switch (
    rng.weighted([
      [4, 'chunk-size'],
      [2, 'chunk-header'],
      [1, 'chunk-type'],
      [5, 'pool'],
      [5, 'element'],
      [2, 'truncate'],
      [2, 'shrink-chunk'],
      [1, 'compact-attributes'],
      [1, 'deep'],
      [1, 'many-attributes'],
      [1, 'duplicate'],
      [1, 'resource-map'],
      [1, 'splice'],
    ] as const)
  ) {
    case 'chunk-size': {
      const c = rng.pick(all);
      set32(
        rng,
        buf,
        c.offset + 4,
        rng.chance(0.5)
          ? undefined
          : rng.pick([
              0,
              7,
              8,
              c.headerSize - 1,
              c.size - 1,
              c.size + 1,
              c.size + 4,
              0xffffffff,
              0x80000000,
            ]),
      );
      return { bytes: buf, how: 'axml:chunk-size' };
    }
    case 'chunk-header': {
      const c = rng.pick(all);
      set16(
        rng,
        buf,
        c.offset + 2,
        rng.chance(0.5) ? undefined : rng.pick([0, 7, 8, c.size, c.size + 1, 0xffff]),
      );
      return { bytes: buf, how: 'axml:chunk-header' };
    }
    case 'chunk-type':
      set16(rng, buf, rng.pick(all).offset, rng.pick(CHUNK_TYPES));
      return { bytes: buf, how: 'axml:chunk-type' };
    case 'pool':
      return {
        bytes: buf,
        how: pools.length ? `axml:${mutateStringPool(rng, buf, rng.pick(pools))}` : 'axml:none',
      };
    case 'element':
      return {
        bytes: buf,
        how: elements.length ? `axml:${mutateElement(rng, buf, rng.pick(elements))}` : 'axml:none',
      };
    case 'compact-attributes': {
      // Attributes declared smaller than the 20 bytes they take, and the element chunk cut to
      // end where the declared attributes end (what a careless encoder would write).
      const starts = ofType(chunks, TYPE_START_ELEMENT);
      if (starts.length === 0) return { bytes: buf, how: 'axml:none' };
      const el = rng.pick(starts);
      const c = el.offset + el.headerSize;
      const attrSize = rng.range(12, 19);
      buf.writeUInt16LE(attrSize, c + 10);
      const end = buf.readUInt16LE(c + 8) + buf.readUInt16LE(c + 12) * attrSize;
      const size = Math.min(el.size, el.headerSize + end + rng.pick([0, 0, 1, 2, 3]));
      buf.writeUInt32LE(size, el.offset + 4);
      const out = Buffer.concat([
        buf.subarray(0, el.offset + size),
        buf.subarray(el.offset + el.size),
      ]);
      return { bytes: withDocSize(rng, out), how: 'axml:compact-attributes' };
    }
    case 'shrink-chunk': {
      // An inner chunk loses its last bytes; the document stays consistent around it.
      if (chunks.length === 0) return { bytes: buf, how: 'axml:none' };
      const c = rng.pick(chunks);
      const cut = Math.min(c.size - 8, rng.pick([1, 2, 3, 4, 8, 12, 20]));
      if (cut <= 0) return { bytes: buf, how: 'axml:none' };
      buf.writeUInt32LE(c.size - cut, c.offset + 4);
      const out = Buffer.concat([
        buf.subarray(0, c.offset + c.size - cut),
        buf.subarray(c.offset + c.size),
      ]);
      return { bytes: withDocSize(rng, out), how: 'axml:shrink-chunk' };
    }
    case 'truncate': {
      const c = rng.pick(all);
      const cut = Math.max(
        0,
        Math.min(
          buf.length,
          c.offset + rng.pick([0, 4, 8, c.headerSize, c.size - 1, rng.int(c.size + 1)]),
        ),
      );
      return { bytes: buf.subarray(0, cut), how: 'axml:truncate' };
    }
    case 'deep':
      return { bytes: deepNesting(rng, buf, chunks), how: 'axml:deep-nesting' };
    case 'many-attributes':
      return { bytes: manyAttributes(rng, buf, chunks), how: 'axml:many-attributes' };
    case 'duplicate': {
      const c = rng.pick(chunks.length ? chunks : [doc]);
      const copy = buf.subarray(c.offset, c.offset + c.size);
      const at = rng.pick(all).offset + (rng.chance(0.5) ? 0 : doc.headerSize);
      const out = Buffer.concat([buf.subarray(0, at), copy, buf.subarray(at)]);
      return { bytes: withDocSize(rng, out), how: 'axml:duplicate-chunk' };
    }
    case 'resource-map': {
      const maps = ofType(chunks, TYPE_RESOURCE_MAP);
      if (maps.length === 0) return { bytes: buf, how: 'axml:none' };
      const m = rng.pick(maps);
      set32(rng, buf, m.offset + 4, rng.pick([m.size + 1, m.size + 2, m.size - 1, 9, 0x7fffffff]));
      return { bytes: buf, how: 'axml:resource-map' };
    }
    default: {
      if (other === undefined) return { bytes: buf, how: 'axml:none' };
      const theirs = axmlChunks(other);
      if (theirs === null || theirs.chunks.length === 0) return { bytes: buf, how: 'axml:none' };
      const c = rng.pick(theirs.chunks);
      const mine = rng.pick(chunks.length ? chunks : [doc]);
      const out = Buffer.concat([
        buf.subarray(0, mine.offset),
        other.subarray(c.offset, c.offset + c.size),
        buf.subarray(mine.offset + (rng.chance(0.5) ? mine.size : 0)),
      ]);
      return { bytes: withDocSize(rng, out), how: 'axml:splice-chunk' };
    }
  }
}
