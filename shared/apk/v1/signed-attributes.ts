/**
 * Checks the signed attributes of a SignerInfo the way Android does (apksig
 * `V1SchemeVerifier.verifySignerInfoAgainstSigFile` and its `SignedAttributes` helper):
 *
 * - attribute types must be unique, and content-type / message-digest single-valued
 *   (else the whole block is refused: JAR_SIG_PARSE_EXCEPTION);
 * - from Android N, content-type must be present (else JAR_SIG_VERIFY_EXCEPTION) and equal
 *   the SignedData's eContentType (else this SignerInfo simply does not verify);
 * - message-digest must be present (else JAR_SIG_VERIFY_EXCEPTION) and equal the digest of
 *   the .SF file (else this SignerInfo does not verify).
 *
 * The signature then covers the attributes as received with only the [0] IMPLICIT tag byte
 * changed to SET (0x31); Android does not re-sort or re-encode them.
 */
import { createHash } from 'node:crypto';
import { BerError, Tag, expectUniversal, primitiveContent, readNode, readOid } from './ber';
import {
  OID_CONTENT_TYPE,
  OID_MESSAGE_DIGEST,
  parseSignedAttributes,
  type SignedAttribute,
} from './pkcs7-signed-data';
import { SdkVersion } from './sdk-versions';
import { messageOf } from '../errors';

/** Outcome of checking one SignerInfo's signed attributes. */
export type SignedAttrsCheck =
  | { kind: 'ok'; signedBytes: Buffer }
  | { kind: 'mismatch' }
  | { kind: 'parse-error'; message: string }
  | { kind: 'verify-error'; message: string };

function singleValue(attrs: readonly SignedAttribute[], oid: string): Buffer | null {
  const attr = attrs.find((a) => a.type === oid);
  if (attr === undefined || attr.values.length === 0) return null;
  if (attr.values.length > 1) throw new Pkcs7Error(`attribute ${oid} has multiple values`);
  return attr.values[0] as Buffer;
}

class Pkcs7Error extends Error {}

function decodeSingle(value: Buffer, tag: number, what: string): Buffer {
  try {
    const node = readNode(value, 0);
    if (node.end !== value.length) throw new BerError(`trailing bytes in ${what}`);
    expectUniversal(node, tag, what);
    return tag === Tag.OID
      ? Buffer.from(readOid(value, node, what))
      : primitiveContent(value, node, what);
  } catch (err) {
    throw new Pkcs7Error(`failed to decode ${what}: ${messageOf(err)}`);
  }
}

export function checkSignedAttributes(
  signedAttrs: Buffer,
  encapContentType: string,
  digestName: string,
  sigFileBytes: Buffer,
  minSdk: number,
  maxSdk: number,
): SignedAttrsCheck {
  if (minSdk < SdkVersion.KITKAT) {
    return {
      kind: 'verify-error',
      message: `APKs with signed attributes are broken on platforms with API level < ${SdkVersion.KITKAT}`,
    };
  }
  let attrs: SignedAttribute[];
  try {
    attrs = parseSignedAttributes(signedAttrs);
  } catch (err) {
    return {
      kind: 'verify-error',
      message: `failed to parse signed attributes: ${messageOf(err)}`,
    };
  }
  try {
    const seen = new Set<string>();
    for (const a of attrs) {
      if (seen.has(a.type)) throw new Pkcs7Error(`duplicate signed attribute: ${a.type}`);
      seen.add(a.type);
    }
    if (maxSdk >= SdkVersion.N) {
      const value = singleValue(attrs, OID_CONTENT_TYPE);
      if (value === null)
        return { kind: 'verify-error', message: 'no content type in signed attributes' };
      const contentType = decodeSingle(value, Tag.OID, 'content type').toString();
      if (contentType !== encapContentType) return { kind: 'mismatch' };
    }
    const digestValue = singleValue(attrs, OID_MESSAGE_DIGEST);
    if (digestValue === null) {
      return { kind: 'verify-error', message: 'no content digest in signed attributes' };
    }
    const expected = decodeSingle(digestValue, Tag.OCTET_STRING, 'message digest');
    const actual = createHash(digestName).update(sigFileBytes).digest();
    if (!expected.equals(actual)) return { kind: 'mismatch' };
  } catch (err) {
    if (err instanceof Pkcs7Error) return { kind: 'parse-error', message: err.message };
    throw err;
  }
  const signedBytes = Buffer.from(signedAttrs);
  signedBytes[0] = 0x31;
  return { kind: 'ok', signedBytes };
}
