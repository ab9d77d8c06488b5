/**
 * Equality of X.500 distinguished names the way Java's `X500Principal.equals` decides it:
 * identical encodings are equal; otherwise both names are compared in RFC 2253 canonical form
 * (string values case-folded, whitespace trimmed and collapsed, NFKD-normalised; attributes of
 * a multi-valued RDN sorted). apksig matches a SignerInfo's issuer against certificates and
 * walks certificate chains with this equality.
 */
import {
  BerError,
  type BerNode,
  Tag,
  contentOf,
  expectConstructed,
  readNode,
  readOid,
} from './ber';

const UTF8_STRING = 12;
const PRINTABLE_STRING = 19;
const T61_STRING = 20;
const IA5_STRING = 22;
const VISIBLE_STRING = 26;
const UNIVERSAL_STRING = 28;
const BMP_STRING = 30;

function decodeUtf16Be(bytes: Buffer): string {
  const swapped = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  swapped.swap16();
  return swapped.toString('utf16le');
}

function decodeUtf32Be(bytes: Buffer): string {
  let out = '';
  for (let i = 0; i + 4 <= bytes.length; i += 4) {
    const cp = bytes.readUInt32BE(i);
    out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
  }
  return out;
}

function decodeString(tagNumber: number, bytes: Buffer): string | null {
  switch (tagNumber) {
    case UTF8_STRING:
      return bytes.toString('utf8');
    case PRINTABLE_STRING:
    case IA5_STRING:
    case VISIBLE_STRING:
    case T61_STRING:
      return bytes.toString('latin1');
    case BMP_STRING:
      return decodeUtf16Be(bytes);
    case UNIVERSAL_STRING:
      return decodeUtf32Be(bytes);
    default:
      return null;
  }
}

function canonicalValue(buf: Buffer, value: BerNode): string {
  const text =
    value.tagClass === 0 && !value.constructed
      ? decodeString(value.tagNumber, contentOf(buf, value))
      : null;
  if (text === null) return `#${buf.subarray(value.start, value.end).toString('hex')}`;
  return text.normalize('NFKD').toUpperCase().toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The canonical form of an encoded Name; throws BerError on a malformed Name. */
export function canonicalName(name: Buffer): string {
  const top = expectConstructed(name, readRoot(name), Tag.SEQUENCE, 'Name');
  const rdns: string[] = [];
  for (const rdnNode of top) {
    const avas = expectConstructed(name, rdnNode, Tag.SET, 'RelativeDistinguishedName').map(
      (avaNode) => {
        const [typeNode, valueNode, extra] = expectConstructed(
          name,
          avaNode,
          Tag.SEQUENCE,
          'AttributeTypeAndValue',
        );
        if (valueNode === undefined || extra !== undefined) {
          throw new BerError('malformed AttributeTypeAndValue');
        }
        return `${readOid(name, typeNode, 'attribute type')}=${canonicalValue(name, valueNode)}`;
      },
    );
    rdns.push(avas.sort().join('+'));
  }
  return rdns.join(',');
}

function readRoot(name: Buffer): BerNode {
  const root = readNode(name, 0);
  if (root.end !== name.length) throw new BerError('trailing bytes after Name');
  return root;
}

/** Whether two encoded Names denote the same principal. */
export function namesEqual(a: Buffer, b: Buffer): boolean {
  if (a.equals(b)) return true;
  try {
    return canonicalName(a) === canonicalName(b);
  } catch {
    return false;
  }
}

/**
 * A string two Names share exactly when `namesEqual` holds for them: the canonical form, or for a
 * Name that cannot be canonicalised, its bytes (it then only equals itself).
 */
export function nameKey(name: Buffer): string {
  try {
    return `c:${canonicalName(name)}`;
  } catch {
    return `r:${name.toString('hex')}`;
  }
}
