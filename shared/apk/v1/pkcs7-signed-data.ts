/**
 * PKCS #7 / CMS SignedData as found in a JAR signature block (.RSA/.DSA/.EC), parsed to the
 * depth apksig's verifier needs (`internal/pkcs7/*`). Parts that are verified or reported
 * byte-for-byte (certificates, signed attributes, issuer names) are kept as slices of the
 * input. Malformed input throws BerError, which the caller reports as JAR_SIG_PARSE_EXCEPTION.
 * Like apksig's Asn1BerParser, elements after the last known field of a SEQUENCE and bytes
 * after the ContentInfo are ignored.
 */
import {
  BerError,
  type BerNode,
  Tag,
  TagClass,
  childrenOf,
  encodingOf,
  expectConstructed,
  expectUniversal,
  isTag,
  isUniversal,
  primitiveContent,
  readInteger,
  readNode,
  readOid,
} from './ber';

export const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
export const OID_DATA = '1.2.840.113549.1.7.1';
export const OID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
export const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';

/** More SignerInfos or certificates than this in one block is refused as malformed. */
export const MAX_SIGNER_INFOS = 64;
export const MAX_CERTIFICATES = 256;

export interface IssuerAndSerialNumber {
  /** Encoded issuer Name. */
  readonly issuer: Buffer;
  readonly serialNumber: bigint;
}

export interface SignerInfo {
  /** Null when the signer is identified by subjectKeyIdentifier, which Android does not support. */
  readonly issuerAndSerialNumber: IssuerAndSerialNumber | null;
  readonly digestAlgorithmOid: string;
  readonly signatureAlgorithmOid: string;
  /** The signed attributes exactly as received (tagged [0] IMPLICIT), or null when absent. */
  readonly signedAttrs: Buffer | null;
  readonly signature: Buffer;
}

export interface SignedData {
  readonly encapContentType: string;
  /** Certificates exactly as stored, in order. */
  readonly certificates: readonly Buffer[];
  readonly signerInfos: readonly SignerInfo[];
}

function algorithmOid(buf: Buffer, node: BerNode | undefined, what: string): string {
  const [oidNode] = expectConstructed(buf, node, Tag.SEQUENCE, what);
  return readOid(buf, oidNode, what);
}

/** Parses a ContentInfo holding SignedData. */
export function parseSignedData(block: Buffer): SignedData {
  const [typeNode, contentNode] = expectConstructed(
    block,
    readNode(block, 0), // like apksig, bytes after the ContentInfo are ignored
    Tag.SEQUENCE,
    'ContentInfo',
  );
  const contentType = readOid(block, typeNode, 'ContentInfo.contentType');
  if (contentType !== OID_SIGNED_DATA) {
    throw new BerError(`unsupported ContentInfo.contentType: ${contentType}`);
  }
  if (contentNode === undefined || !isTag(contentNode, TagClass.CONTEXT, 0)) {
    throw new BerError('ContentInfo has no content');
  }
  const [signedDataNode] = childrenOf(block, contentNode);
  const fields = expectConstructed(block, signedDataNode, Tag.SEQUENCE, 'SignedData');
  let i = 0;
  readInteger(block, fields[i++], 'SignedData.version');
  expectUniversal(fields[i++], Tag.SET, 'SignedData.digestAlgorithms');
  const encap = expectConstructed(block, fields[i++], Tag.SEQUENCE, 'EncapsulatedContentInfo');
  const encapContentType = readOid(block, encap[0], 'eContentType');

  let certificates: Buffer[] = [];
  if (isTag(fields[i], TagClass.CONTEXT, 0)) {
    const certNodes = childrenOf(block, fields[i++] as BerNode);
    if (certNodes.length > MAX_CERTIFICATES) throw new BerError('too many certificates');
    certificates = certNodes.map((n) => encodingOf(block, n));
  }
  if (isTag(fields[i], TagClass.CONTEXT, 1)) i++; // crls
  const signerInfoNodes = expectConstructed(block, fields[i], Tag.SET, 'SignerInfos');
  if (signerInfoNodes.length > MAX_SIGNER_INFOS) throw new BerError('too many SignerInfos');
  return {
    encapContentType,
    certificates,
    signerInfos: signerInfoNodes.map((n) => parseSignerInfo(block, n)),
  };
}

function parseSignerInfo(buf: Buffer, node: BerNode): SignerInfo {
  const fields = expectConstructed(buf, node, Tag.SEQUENCE, 'SignerInfo');
  let i = 0;
  readInteger(buf, fields[i++], 'SignerInfo.version');
  const sidNode = fields[i++];
  let issuerAndSerialNumber: IssuerAndSerialNumber | null = null;
  if (isUniversal(sidNode, Tag.SEQUENCE)) {
    const [issuerNode, serialNode] = childrenOf(buf, sidNode);
    issuerAndSerialNumber = {
      issuer: encodingOf(buf, expectUniversal(issuerNode, Tag.SEQUENCE, 'issuer')),
      serialNumber: readInteger(buf, serialNode, 'serialNumber'),
    };
  } else if (!isTag(sidNode, TagClass.CONTEXT, 0)) {
    throw new BerError('malformed SignerIdentifier');
  }
  const digestAlgorithmOid = algorithmOid(buf, fields[i++], 'SignerInfo.digestAlgorithm');
  let signedAttrs: Buffer | null = null;
  if (isTag(fields[i], TagClass.CONTEXT, 0)) {
    const attrsNode = fields[i++] as BerNode;
    if (!attrsNode.constructed) throw new BerError('signedAttrs must be constructed');
    signedAttrs = encodingOf(buf, attrsNode);
  }
  const signatureAlgorithmOid = algorithmOid(buf, fields[i++], 'SignerInfo.signatureAlgorithm');
  const sigNode = expectUniversal(fields[i], Tag.OCTET_STRING, 'SignerInfo.signature');
  const signature = primitiveContent(buf, sigNode, 'SignerInfo.signature');
  // unsignedAttrs [1] and anything after are not needed.
  return {
    issuerAndSerialNumber,
    digestAlgorithmOid,
    signatureAlgorithmOid,
    signedAttrs,
    signature,
  };
}

export interface SignedAttribute {
  readonly type: string;
  /** Each value's encoding. */
  readonly values: readonly Buffer[];
}

/** Parses the SET OF Attribute inside signed attributes; throws BerError when malformed. */
export function parseSignedAttributes(signedAttrs: Buffer): SignedAttribute[] {
  const root = readNode(signedAttrs, 0);
  return childrenOf(signedAttrs, root).map((attrNode) => {
    // Fields after attrValues are ignored, as apksig's parser does.
    const [typeNode, valuesNode] = expectConstructed(
      signedAttrs,
      attrNode,
      Tag.SEQUENCE,
      'Attribute',
    );
    const type = readOid(signedAttrs, typeNode, 'Attribute.attrType');
    const values = expectConstructed(signedAttrs, valuesNode, Tag.SET, 'Attribute.attrValues');
    return { type, values: values.map((v) => encodingOf(signedAttrs, v)) };
  });
}
