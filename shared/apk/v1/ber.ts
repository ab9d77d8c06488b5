/**
 * A minimal BER/DER reader that keeps byte offsets.
 *
 * apksig's JAR verifier depends on the *original* encodings of several parts of a PKCS #7
 * block: the signed attributes are verified over their received bytes with only the first
 * byte re-tagged, and certificates are reported (and fingerprinted) exactly as stored.
 * node-forge's `asn1.fromDer` rebuilds a tree without offsets, so slicing originals from it
 * is impossible; this reader walks tag-length-value headers over the input Buffer instead.
 * OIDs are decoded here too: forge's `derToOid` stops at 53-bit arcs, so a certificate with a
 * UUID-based OID (2.25.<128 bits>), which Java parses, would be refused. Indefinite lengths are
 * accepted, as BER allows;
 * nesting depth and lengths are bounded by the input, so hostile input costs at most a
 * linear walk.
 */

export class BerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BerError';
  }
}

export const TagClass = { UNIVERSAL: 0, APPLICATION: 1, CONTEXT: 2, PRIVATE: 3 } as const;

export const Tag = {
  BOOLEAN: 1,
  INTEGER: 2,
  BIT_STRING: 3,
  OCTET_STRING: 4,
  NULL: 5,
  OID: 6,
  SEQUENCE: 16,
  SET: 17,
} as const;

export interface BerNode {
  readonly tagClass: number;
  readonly constructed: boolean;
  readonly tagNumber: number;
  /** Offset of the identifier octet. */
  readonly start: number;
  readonly contentStart: number;
  /** End of the contents (before the end-of-contents octets of an indefinite encoding). */
  readonly contentEnd: number;
  /** End of the whole encoding. */
  readonly end: number;
}

/**
 * Deeper nesting is refused. Finding the end of an indefinite-length element walks its
 * descendants, so the cost of a walk is bounded by input length times this depth.
 */
const MAX_DEPTH = 32;

/** Reads the element that starts at `offset` and must end by `limit`. */
export function readNode(buf: Buffer, offset: number, limit: number = buf.length): BerNode {
  return readAt(buf, offset, Math.min(limit, buf.length), 0);
}

function readAt(buf: Buffer, offset: number, limit: number, depth: number): BerNode {
  if (depth > MAX_DEPTH) throw new BerError('ASN.1 nesting too deep');
  let pos = offset;
  const byteAt = (): number => {
    if (pos >= limit) throw new BerError(`truncated ASN.1 element at ${offset}`);
    return buf[pos++] as number;
  };
  const first = byteAt();
  const tagClass = first >> 6;
  const constructed = (first & 0x20) !== 0;
  let tagNumber = first & 0x1f;
  if (tagNumber === 0x1f) {
    tagNumber = 0;
    for (let i = 0; ; i++) {
      if (i === 4) throw new BerError('ASN.1 tag number too large');
      const b = byteAt();
      tagNumber = tagNumber * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  const lengthByte = byteAt();
  if (lengthByte === 0x80) {
    if (!constructed) throw new BerError('indefinite length on a primitive ASN.1 element');
    const contentStart = pos;
    let cursor = contentStart;
    for (;;) {
      if (cursor + 2 <= limit && buf[cursor] === 0 && buf[cursor + 1] === 0) {
        return {
          tagClass,
          constructed,
          tagNumber,
          start: offset,
          contentStart,
          contentEnd: cursor,
          end: cursor + 2,
        };
      }
      cursor = readAt(buf, cursor, limit, depth + 1).end;
    }
  }
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count > 4 || count === 0x7f) throw new BerError('ASN.1 length too large');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + byteAt();
  }
  const contentStart = pos;
  const contentEnd = contentStart + length;
  if (contentEnd > limit) throw new BerError(`ASN.1 element at ${offset} overruns its container`);
  return {
    tagClass,
    constructed,
    tagNumber,
    start: offset,
    contentStart,
    contentEnd,
    end: contentEnd,
  };
}

/** The direct children of a constructed element. */
export function childrenOf(buf: Buffer, node: BerNode): BerNode[] {
  if (!node.constructed) throw new BerError('expected a constructed ASN.1 element');
  const out: BerNode[] = [];
  let cursor = node.contentStart;
  while (cursor < node.contentEnd) {
    const child = readNode(buf, cursor, node.contentEnd);
    out.push(child);
    cursor = child.end;
  }
  return out;
}

export function isTag(node: BerNode | undefined, tagClass: number, tagNumber: number): boolean {
  return node !== undefined && node.tagClass === tagClass && node.tagNumber === tagNumber;
}

export function isUniversal(node: BerNode | undefined, tagNumber: number): node is BerNode {
  return isTag(node, TagClass.UNIVERSAL, tagNumber);
}

export function expectUniversal(
  node: BerNode | undefined,
  tagNumber: number,
  what: string,
): BerNode {
  if (!isUniversal(node, tagNumber)) throw new BerError(`malformed ${what}`);
  return node;
}

/** The children of a universal SEQUENCE or SET. */
export function expectConstructed(
  buf: Buffer,
  node: BerNode | undefined,
  tagNumber: number,
  what: string,
): BerNode[] {
  const n = expectUniversal(node, tagNumber, what);
  return childrenOf(buf, n);
}

export function contentOf(buf: Buffer, node: BerNode): Buffer {
  return buf.subarray(node.contentStart, node.contentEnd);
}

export function encodingOf(buf: Buffer, node: BerNode): Buffer {
  return buf.subarray(node.start, node.end);
}

/** Contents of a primitive element (a constructed BER string is refused, as apksig does). */
export function primitiveContent(buf: Buffer, node: BerNode, what: string): Buffer {
  if (node.constructed) throw new BerError(`${what} must be primitive`);
  return contentOf(buf, node);
}

export function readOid(buf: Buffer, node: BerNode | undefined, what: string): string {
  const n = expectUniversal(node, Tag.OID, what);
  const bytes = primitiveContent(buf, n, what);
  const last = bytes[bytes.length - 1];
  if (last === undefined || (last & 0x80) !== 0) throw new BerError(`malformed OID in ${what}`);
  const arcs: string[] = [];
  let value = 0n;
  for (const b of bytes) {
    value = (value << 7n) | BigInt(b & 0x7f);
    if (b & 0x80) continue;
    if (arcs.length === 0) {
      const first = value < 80n ? value / 40n : 2n;
      arcs.push(`${first}`, `${value - first * 40n}`);
    } else {
      arcs.push(`${value}`);
    }
    value = 0n;
  }
  return arcs.join('.');
}

/** A two's-complement INTEGER as a bigint. */
export function readInteger(buf: Buffer, node: BerNode | undefined, what: string): bigint {
  const n = expectUniversal(node, Tag.INTEGER, what);
  const bytes = primitiveContent(buf, n, what);
  if (bytes.length === 0) throw new BerError(`empty INTEGER in ${what}`);
  const magnitude = BigInt(`0x${bytes.toString('hex')}`);
  return ((bytes[0] as number) & 0x80) !== 0
    ? magnitude - (1n << BigInt(bytes.length * 8))
    : magnitude;
}

/** Encodes a definite-length header + contents. */
export function encodeTlv(identifier: number, contents: Buffer): Buffer {
  const len = contents.length;
  let header: number[];
  if (len < 0x80) header = [identifier, len];
  else {
    const lenBytes: number[] = [];
    for (let v = len; v > 0; v = Math.floor(v / 256)) lenBytes.unshift(v & 0xff);
    header = [identifier, 0x80 | lenBytes.length, ...lenBytes];
  }
  return Buffer.concat([Buffer.from(header), contents]);
}
