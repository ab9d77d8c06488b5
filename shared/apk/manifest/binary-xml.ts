/**
 * Reader for Android binary XML (the compiled AndroidManifest.xml). Port of AOSP apksig
 * `internal/apk/AndroidBinXmlParser.java`: same chunk walk, same tolerance (a last chunk that does
 * not fit is ignored, unknown chunks are skipped), same NUL-termination checks on strings, and
 * attribute names resolved through the resource map, as Android does. Every malformed input
 * ends in `ApkFormatError(MANIFEST_MALFORMED)`; counts, offsets and nesting are bounded.
 */
import { ApkFormatError, ApkIssueCode } from '../issues';

const CHUNK_HEADER_MIN = 8;
const TYPE_STRING_POOL = 0x0001;
const TYPE_RES_XML = 0x0003;
const TYPE_START_ELEMENT = 0x0102;
const TYPE_END_ELEMENT = 0x0103;
const TYPE_RESOURCE_MAP = 0x0180;
const NO_NAMESPACE = 0xffffffff;
const FLAG_UTF8 = 0x100;
const MAX_DEPTH = 1024;
/** ResXMLTree_attribute: namespace, name, raw value, then an 8-byte Res_value. */
const ATTRIBUTE_BYTES = 20;

/** Typed value kinds (Res_value::dataType). */
export const ValueType = {
  REFERENCE: 0x01,
  STRING: 0x03,
  INT_DEC: 0x10,
  INT_HEX: 0x11,
  INT_BOOLEAN: 0x12,
} as const;

export interface XmlAttribute {
  readonly namespace: string;
  readonly name: string;
  /** Resource ID from the resource map, 0 when the attribute has none. */
  readonly resourceId: number;
  readonly valueType: number;
  /** Raw 32-bit data (unsigned). */
  readonly data: number;
  /** The string value when `valueType` is STRING. */
  stringValue(): string;
}

export interface XmlStartElement {
  readonly namespace: string;
  readonly name: string;
  /** 1 for the root element. */
  readonly depth: number;
  readonly attributes: readonly XmlAttribute[];
}

function fail(message: string): ApkFormatError {
  return new ApkFormatError(ApkIssueCode.MANIFEST_MALFORMED, `AndroidManifest.xml: ${message}`);
}

interface Chunk {
  type: number;
  header: Buffer;
  contents: Buffer;
}

/** Next chunk at `pos`, or null when the rest cannot hold one (ignored, as Android does). */
function readChunk(buf: Buffer, pos: number): { chunk: Chunk; next: number } | null {
  if (buf.length - pos < CHUNK_HEADER_MIN) return null;
  const type = buf.readUInt16LE(pos);
  const headerSize = buf.readUInt16LE(pos + 2);
  const size = buf.readUInt32LE(pos + 4);
  if (size - CHUNK_HEADER_MIN > buf.length - pos - CHUNK_HEADER_MIN) return null;
  if (headerSize < CHUNK_HEADER_MIN) throw fail(`chunk header too short: ${headerSize}`);
  if (headerSize > size) throw fail(`chunk header too long: ${headerSize} > ${size}`);
  return {
    chunk: {
      type,
      header: buf.subarray(pos, pos + headerSize),
      contents: buf.subarray(pos + headerSize, pos + size),
    },
    next: pos + size,
  };
}

class StringPool {
  private readonly count: number;
  private readonly utf8: boolean;
  private readonly offsets: Buffer;
  private readonly strings: Buffer;
  private readonly cache = new Map<number, string>();

  constructor(chunk: Chunk) {
    const h = chunk.header;
    if (h.length < CHUNK_HEADER_MIN + 20) throw fail('string pool header too short');
    this.count = h.readUInt32LE(8);
    const styleCount = h.readUInt32LE(12);
    const flags = h.readUInt32LE(16);
    const stringsStart = h.readUInt32LE(20);
    const stylesStart = h.readUInt32LE(24);
    const contents = chunk.contents;
    if (this.count > contents.length / 4) throw fail(`string pool lists ${this.count} strings`);
    this.offsets = contents.subarray(0, this.count * 4);
    this.utf8 = (flags & FLAG_UTF8) !== 0;
    if (this.count === 0) {
      this.strings = Buffer.alloc(0);
      return;
    }
    const start = stringsStart - h.length;
    let end = contents.length;
    if (styleCount > 0) {
      if (stylesStart < stringsStart) throw fail('styles offset before strings offset');
      end = stylesStart - h.length;
    }
    if (start < 0 || end > contents.length || start > end)
      throw fail('strings section out of bounds');
    this.strings = contents.subarray(start, end);
  }

  get(index: number): string {
    if (index < 0 || index >= this.count) throw fail(`string index ${index} out of range`);
    const cached = this.cache.get(index);
    if (cached !== undefined) return cached;
    const offset = this.offsets.readUInt32LE(index * 4);
    if (offset >= this.strings.length) throw fail(`string ${index} offset out of bounds`);
    const value = this.utf8 ? this.readUtf8(offset) : this.readUtf16(offset);
    this.cache.set(index, value);
    return value;
  }

  private byteAt(pos: number): number {
    const b = this.strings[pos];
    if (b === undefined) throw fail('string runs past the pool');
    return b;
  }

  private readUtf8(offset: number): string {
    let pos = offset;
    let n = this.byteAt(pos++);
    if (n & 0x80) pos++; // UTF-16 length, ignored
    n = this.byteAt(pos++);
    if (n & 0x80) n = ((n & 0x7f) << 8) | this.byteAt(pos++);
    if (this.byteAt(pos + n) !== 0) throw fail('UTF-8 string not NUL terminated');
    return this.strings.toString('utf8', pos, pos + n);
  }

  private readUtf16(offset: number): string {
    if (offset + 2 > this.strings.length) throw fail('string runs past the pool');
    let pos = offset;
    let n = this.strings.readUInt16LE(pos);
    pos += 2;
    if (n & 0x8000) {
      if (pos + 2 > this.strings.length) throw fail('string runs past the pool');
      n = ((n & 0x7fff) << 16) | this.strings.readUInt16LE(pos);
      pos += 2;
    }
    const end = pos + n * 2;
    if (end + 2 > this.strings.length) throw fail('string runs past the pool');
    if (this.strings[end] !== 0 || this.strings[end + 1] !== 0) {
      throw fail('UTF-16 string not NUL terminated');
    }
    return this.strings.toString('utf16le', pos, end);
  }
}

function readAttributes(
  contents: Buffer,
  pool: StringPool,
  resourceMap: Buffer | null,
): XmlAttribute[] {
  if (contents.length < 20) throw fail('start element chunk too short');
  const attrStart = contents.readUInt16LE(8);
  const attrSize = contents.readUInt16LE(10);
  const attrCount = contents.readUInt16LE(12);
  const attrEnd = attrStart + attrCount * attrSize;
  if (attrStart > contents.length || attrEnd > contents.length)
    throw fail('attributes out of bounds');
  if (attrCount > 0 && attrSize < 16) throw fail(`attribute size ${attrSize} too small`);
  const attributes: XmlAttribute[] = [];
  for (let i = 0; i < attrCount; i++) {
    const at = attrStart + i * attrSize;
    // A declared size of 16..19 passes the checks above, yet an attribute is read as 20 bytes.
    if (at + ATTRIBUTE_BYTES > contents.length)
      throw fail(`attribute #${i + 1} runs past its element`);
    const nsId = contents.readUInt32LE(at);
    const nameId = contents.readUInt32LE(at + 4);
    const valueType = contents.readUInt8(at + 15);
    const data = contents.readUInt32LE(at + 16);
    const mapEntries = resourceMap === null ? 0 : resourceMap.length >>> 2;
    const resourceId =
      resourceMap !== null && nameId < mapEntries ? resourceMap.readUInt32LE(nameId * 4) : 0;
    attributes.push({
      namespace: nsId === NO_NAMESPACE ? '' : pool.get(nsId),
      name: pool.get(nameId),
      resourceId,
      valueType,
      data,
      stringValue: () => pool.get(data),
    });
  }
  return attributes;
}

/** The start elements of the document, in order, each with its depth and attributes. */
export function* startElements(xml: Buffer): Generator<XmlStartElement> {
  let pos = 0;
  let body: Buffer | null = null;
  while (pos < xml.length) {
    const read = readChunk(xml, pos);
    if (read === null) break;
    pos = read.next;
    if (read.chunk.type === TYPE_RES_XML) {
      body = read.chunk.contents;
      break;
    }
  }
  if (body === null) throw fail('no XML chunk in file');
  let pool: StringPool | null = null;
  let resourceMap: Buffer | null = null;
  let depth = 0;
  pos = 0;
  while (pos < body.length) {
    const read = readChunk(body, pos);
    if (read === null) break;
    pos = read.next;
    const { chunk } = read;
    switch (chunk.type) {
      case TYPE_STRING_POOL:
        if (pool !== null) throw fail('multiple string pools not supported');
        pool = new StringPool(chunk);
        break;
      case TYPE_RESOURCE_MAP:
        if (resourceMap !== null) throw fail('multiple resource maps not supported');
        resourceMap = chunk.contents.subarray(0, chunk.contents.length & ~3);
        break;
      case TYPE_START_ELEMENT: {
        if (pool === null) throw fail('element before string pool');
        if (chunk.contents.length < 20) throw fail('start element chunk too short');
        const nsId = chunk.contents.readUInt32LE(0);
        const name = pool.get(chunk.contents.readUInt32LE(4));
        const namespace = nsId === NO_NAMESPACE ? '' : pool.get(nsId);
        depth++;
        if (depth > MAX_DEPTH) throw fail(`elements nested deeper than ${MAX_DEPTH}`);
        yield {
          namespace,
          name,
          depth,
          attributes: readAttributes(chunk.contents, pool, resourceMap),
        };
        break;
      }
      case TYPE_END_ELEMENT:
        if (pool === null) throw fail('element before string pool');
        if (chunk.contents.length < 8) throw fail('end element chunk too short');
        if (chunk.contents.readUInt32LE(0) !== NO_NAMESPACE)
          pool.get(chunk.contents.readUInt32LE(0));
        pool.get(chunk.contents.readUInt32LE(4));
        depth--;
        break;
      default:
        break;
    }
  }
}
