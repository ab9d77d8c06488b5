/**
 * The few fields of an X.509 certificate the JAR verifier needs, read with offsets so the
 * certificate stays exactly as stored (apksig's GuaranteedEncodedFormX509Certificate).
 * node-forge's certificate parser is not used: it refuses EC keys.
 */
import {
  BerError,
  type BerNode,
  Tag,
  TagClass,
  childrenOf,
  encodeTlv,
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
import { canonicalName } from './x500-name';

export const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const OID_KEY_USAGE = '2.5.29.15';

/**
 * Extensions the JDK's X.509 implementation understands (sun.security.x509.OIDMap). apksig
 * runs on the JDK, where a critical extension outside this list makes
 * `hasUnsupportedCriticalExtension()` true and the JAR signature is refused.
 */
const SUPPORTED_CRITICAL_EXTENSIONS: ReadonlySet<string> = new Set([
  '2.5.29.14', // subjectKeyIdentifier
  '2.5.29.15', // keyUsage
  '2.5.29.16', // privateKeyUsagePeriod
  '2.5.29.17', // subjectAltName
  '2.5.29.18', // issuerAltName
  '2.5.29.19', // basicConstraints
  '2.5.29.30', // nameConstraints
  '2.5.29.31', // cRLDistributionPoints
  '2.5.29.32', // certificatePolicies
  '2.5.29.33', // policyMappings
  '2.5.29.35', // authorityKeyIdentifier
  '2.5.29.36', // policyConstraints
  '2.5.29.37', // extKeyUsage
  '2.5.29.46', // freshestCRL
  '2.5.29.54', // inhibitAnyPolicy
  '1.3.6.1.5.5.7.1.1', // authorityInfoAccess
  '1.3.6.1.5.5.7.1.11', // subjectInfoAccess
  '1.3.6.1.5.5.7.48.1.5', // id-pkix-ocsp-nocheck
  '2.16.840.1.113730.1.1', // netscape-cert-type
]);

export interface X509Certificate {
  /** The certificate exactly as stored. */
  readonly der: Buffer;
  readonly serialNumber: bigint;
  /** Encoded issuer and subject Names. */
  readonly issuer: Buffer;
  readonly subject: Buffer;
  /** SubjectPublicKeyInfo ready for `crypto.createPublicKey` (a negative RSA modulus repaired). */
  readonly subjectPublicKeyInfo: Buffer;
  /** Key usage bits (bit 0 = digitalSignature), or null when the extension is absent. */
  readonly keyUsage: readonly boolean[] | null;
  readonly hasUnsupportedCriticalExtension: boolean;
}

/** Parses one DER (or BER) certificate; throws BerError when it is malformed. */
export function parseCertificate(der: Buffer): X509Certificate {
  const root = readNode(der, 0);
  if (root.end !== der.length) throw new BerError('trailing bytes after certificate');
  const [tbsNode, sigAlgNode, sigNode, extra] = expectConstructed(
    der,
    root,
    Tag.SEQUENCE,
    'Certificate',
  );
  expectUniversal(sigAlgNode, Tag.SEQUENCE, 'Certificate.signatureAlgorithm');
  expectUniversal(sigNode, Tag.BIT_STRING, 'Certificate.signature');
  if (extra !== undefined) throw new BerError('trailing fields in Certificate');

  const tbs = expectConstructed(der, tbsNode, Tag.SEQUENCE, 'TBSCertificate');
  let i = 0;
  if (isTag(tbs[0], TagClass.CONTEXT, 0)) {
    const [versionNode] = childrenOf(der, tbs[i++] as BerNode);
    const version = readInteger(der, versionNode, 'version');
    if (version < 0n || version > 2n)
      throw new BerError(`unsupported certificate version ${version}`);
  }
  const serialNumber = readInteger(der, tbs[i++], 'serialNumber');
  // The JDK refuses a certificate whose two signature algorithm fields differ.
  if (algorithmKey(der, tbs[i++]) !== algorithmKey(der, sigAlgNode)) {
    throw new BerError('signature algorithm mismatch between TBSCertificate and Certificate');
  }
  const issuerNode = expectUniversal(tbs[i++], Tag.SEQUENCE, 'issuer');
  const validity = expectConstructed(der, tbs[i++], Tag.SEQUENCE, 'validity');
  if (
    validity.length !== 2 ||
    !validity.every((t) => isUniversal(t, UTC_TIME) || isUniversal(t, GENERALIZED_TIME))
  ) {
    throw new BerError('malformed validity');
  }
  const subjectNode = expectUniversal(tbs[i++], Tag.SEQUENCE, 'subject');
  canonicalName(encodingOf(der, issuerNode)); // throws on a malformed Name, as the JDK does
  canonicalName(encodingOf(der, subjectNode));
  const spkiNode = expectUniversal(tbs[i++], Tag.SEQUENCE, 'subjectPublicKeyInfo');
  if (isTag(tbs[i], TagClass.CONTEXT, 1)) i++;
  if (isTag(tbs[i], TagClass.CONTEXT, 2)) i++;
  let extensions: Extension[] = [];
  if (isTag(tbs[i], TagClass.CONTEXT, 3)) extensions = readExtensions(der, tbs[i++] as BerNode);
  if (i !== tbs.length) throw new BerError('unexpected fields in TBSCertificate');

  let keyUsage: boolean[] | null = null;
  let hasUnsupportedCriticalExtension = false;
  for (const ext of extensions) {
    if (ext.oid === OID_KEY_USAGE) keyUsage = readKeyUsage(ext.value);
    if (ext.critical && !SUPPORTED_CRITICAL_EXTENSIONS.has(ext.oid)) {
      hasUnsupportedCriticalExtension = true;
    }
  }
  return {
    der,
    serialNumber,
    issuer: encodingOf(der, issuerNode),
    subject: encodingOf(der, subjectNode),
    subjectPublicKeyInfo: repairSubjectPublicKeyInfo(der, spkiNode),
    keyUsage,
    hasUnsupportedCriticalExtension,
  };
}

const UTC_TIME = 23;
const GENERALIZED_TIME = 24;

/** AlgorithmIdentifier as OID + parameters, absent parameters counting as NULL. */
function algorithmKey(der: Buffer, node: BerNode | undefined): string {
  const [oidNode, params] = expectConstructed(der, node, Tag.SEQUENCE, 'AlgorithmIdentifier');
  const oid = readOid(der, oidNode, 'algorithm');
  const p = params === undefined ? '0500' : encodingOf(der, params).toString('hex');
  return `${oid}:${p}`;
}

interface Extension {
  oid: string;
  critical: boolean;
  value: Buffer;
}

function readExtensions(der: Buffer, explicitNode: BerNode): Extension[] {
  const [seqNode, extra] = childrenOf(der, explicitNode);
  if (extra !== undefined) throw new BerError('malformed extensions');
  return expectConstructed(der, seqNode, Tag.SEQUENCE, 'Extensions').map((extNode) => {
    const fields = expectConstructed(der, extNode, Tag.SEQUENCE, 'Extension');
    const oid = readOid(der, fields[0], 'extnID');
    let critical = false;
    let j = 1;
    if (isUniversal(fields[j], Tag.BOOLEAN)) {
      const b = primitiveContent(der, fields[j] as BerNode, 'critical');
      if (b.length !== 1) throw new BerError('malformed BOOLEAN');
      critical = b[0] !== 0;
      j++;
    }
    const valueNode = expectUniversal(fields[j], Tag.OCTET_STRING, 'extnValue');
    if (fields.length !== j + 1) throw new BerError('malformed Extension');
    return { oid, critical, value: primitiveContent(der, valueNode, 'extnValue') };
  });
}

function readKeyUsage(value: Buffer): boolean[] {
  const node = readNode(value, 0);
  if (node.end !== value.length) throw new BerError('malformed keyUsage');
  const bits = primitiveContent(
    value,
    expectUniversal(node, Tag.BIT_STRING, 'keyUsage'),
    'keyUsage',
  );
  const unused = bits[0];
  if (unused === undefined || unused > 7 || (bits.length === 1 && unused !== 0)) {
    throw new BerError('malformed keyUsage BIT STRING');
  }
  const count = (bits.length - 1) * 8 - unused;
  const out: boolean[] = [];
  for (let bit = 0; bit < count; bit++) {
    out.push((((bits[1 + (bit >> 3)] as number) >> (7 - (bit & 7))) & 1) === 1);
  }
  return out;
}

/**
 * Returns the SubjectPublicKeyInfo, re-encoding an RSA modulus that was stored as a negative
 * INTEGER (missing its leading zero) the way apksig's `encodePublicKey` repairs it; OpenSSL
 * would otherwise refuse the key.
 */
function repairSubjectPublicKeyInfo(der: Buffer, spkiNode: BerNode): Buffer {
  const original = encodingOf(der, spkiNode);
  const [algNode, keyNode] = expectConstructed(der, spkiNode, Tag.SEQUENCE, 'SubjectPublicKeyInfo');
  const [algOidNode] = expectConstructed(der, algNode, Tag.SEQUENCE, 'AlgorithmIdentifier');
  const bitString = primitiveContent(
    der,
    expectUniversal(keyNode, Tag.BIT_STRING, 'subjectPublicKey'),
    'subjectPublicKey',
  );
  if (readOid(der, algOidNode, 'algorithm') !== OID_RSA_ENCRYPTION) return original;
  if (bitString[0] !== 0) return original;
  const rsaKey = bitString.subarray(1);
  const rsaNode = readNode(rsaKey, 0);
  const [modulusNode, exponentNode] = expectConstructed(
    rsaKey,
    rsaNode,
    Tag.SEQUENCE,
    'RSAPublicKey',
  );
  const modulus = primitiveContent(
    rsaKey,
    expectUniversal(modulusNode, Tag.INTEGER, 'modulus'),
    'modulus',
  );
  if (exponentNode === undefined || modulus.length === 0 || ((modulus[0] as number) & 0x80) === 0) {
    return original;
  }
  const fixedKey = encodeTlv(
    0x30,
    Buffer.concat([
      encodeTlv(0x02, Buffer.concat([Buffer.from([0]), modulus])),
      encodingOf(rsaKey, exponentNode),
    ]),
  );
  const fixedBitString = encodeTlv(0x03, Buffer.concat([Buffer.from([0]), fixedKey]));
  return encodeTlv(0x30, Buffer.concat([encodingOf(der, algNode as BerNode), fixedBitString]));
}
