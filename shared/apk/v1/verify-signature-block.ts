/**
 * Verifies one signer's signature block (.RSA/.DSA/.EC, PKCS #7 SignedData) against its
 * signature file (.SF); a port of apksig `V1SchemeVerifier.Signer.verifySigBlockAgainstSigFile`
 * and `verifySignerInfoAgainstSigFile`.
 *
 * Before Android N only the first SignerInfo is tried; from N all are, and the first that
 * verifies wins. Checks that Android treats as fatal for the whole block (unsupported
 * algorithm, missing signing certificate, unusable key, malformed attributes) stop at once.
 */
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { issue, type ApkIssue } from '../issues';
import { BerError } from './ber';
import { V1IssueCode } from './issue-codes';
import { parseSignedData, type SignedData, type SignerInfo } from './pkcs7-signed-data';
import { SdkVersion } from './sdk-versions';
import { checkSignedAttributes } from './signed-attributes';
import {
  digestNameForOid,
  formatApiLevels,
  signatureSchemeFor,
  unsupportedApiLevels,
  type KeyFamily,
} from './signature-algorithms';
import { parseCertificate, type X509Certificate } from './x509-certificate';
import { nameKey, namesEqual } from './x500-name';
import { messageOf } from '../errors';

export interface SignatureBlockOutcome {
  /** The signing certificate chain (signer first), or null when the block did not verify. */
  readonly certChain: X509Certificate[] | null;
  readonly errors: ApkIssue[];
}

type SignerInfoOutcome =
  | { kind: 'verified'; cert: X509Certificate }
  | { kind: 'not-verified' }
  | { kind: 'error'; issue: ApkIssue };

export function verifySignatureBlock(
  blockName: string,
  sigFileName: string,
  blockBytes: Buffer,
  sigFileBytes: Buffer,
  minSdk: number,
  maxSdk: number,
): SignatureBlockOutcome {
  const fail = (code: string, message: string): SignatureBlockOutcome => ({
    certChain: null,
    errors: [issue(code, `${blockName}: ${message}`)],
  });
  let signedData: SignedData;
  try {
    signedData = parseSignedData(blockBytes);
  } catch (err) {
    if (!(err instanceof BerError)) throw err;
    return fail(V1IssueCode.JAR_SIG_PARSE_EXCEPTION, `failed to parse: ${err.message}`);
  }
  const [firstSignerInfo] = signedData.signerInfos;
  if (firstSignerInfo === undefined) {
    return fail(V1IssueCode.JAR_SIG_NO_SIGNERS, 'no signers in PKCS #7 SignedData');
  }
  let certificates: X509Certificate[];
  try {
    certificates = signedData.certificates.map((der, i) => {
      try {
        return parseCertificate(der);
      } catch (err) {
        throw new BerError(`failed to parse certificate #${i + 1}: ${messageOf(err)}`);
      }
    });
  } catch (err) {
    return fail(V1IssueCode.JAR_SIG_PARSE_EXCEPTION, messageOf(err));
  }

  const toTry = minSdk < SdkVersion.N ? [firstSignerInfo] : signedData.signerInfos;
  let signingCert: X509Certificate | null = null;
  for (const signerInfo of toTry) {
    const outcome = verifySignerInfo(
      signedData,
      certificates,
      signerInfo,
      sigFileBytes,
      minSdk,
      maxSdk,
    );
    if (outcome.kind === 'error') {
      return {
        certChain: null,
        errors: [{ ...outcome.issue, message: `${blockName}: ${outcome.issue.message}` }],
      };
    }
    if (outcome.kind === 'verified' && signingCert === null) signingCert = outcome.cert;
  }
  if (signingCert === null) {
    return fail(V1IssueCode.JAR_SIG_DID_NOT_VERIFY, `signature over ${sigFileName} did not verify`);
  }
  return { certChain: certificateChain(certificates, signingCert), errors: [] };
}

function verifySignerInfo(
  signedData: SignedData,
  certificates: readonly X509Certificate[],
  signerInfo: SignerInfo,
  sigFileBytes: Buffer,
  minSdk: number,
  maxSdk: number,
): SignerInfoOutcome {
  const { digestAlgorithmOid: digestOid, signatureAlgorithmOid: sigOid } = signerInfo;
  const verifyError = (message: string): SignerInfoOutcome => ({
    kind: 'error',
    issue: issue(V1IssueCode.JAR_SIG_VERIFY_EXCEPTION, message),
  });
  const gaps = unsupportedApiLevels(digestOid, sigOid, minSdk, maxSdk);
  if (gaps.length > 0) {
    return {
      kind: 'error',
      issue: issue(
        V1IssueCode.JAR_SIG_UNSUPPORTED_SIG_ALG,
        `digest algorithm ${digestOid} with signature algorithm ${sigOid} is not supported on API levels ${formatApiLevels(gaps)}`,
      ),
    };
  }
  const cert = findCertificate(certificates, signerInfo);
  if (cert === undefined)
    return verifyError('signing certificate referenced in SignerInfo not found in SignedData');
  if (cert.hasUnsupportedCriticalExtension) {
    return verifyError('signing certificate has unsupported critical extensions');
  }
  if (cert.keyUsage !== null && cert.keyUsage[0] !== true && cert.keyUsage[1] !== true) {
    return verifyError('signing certificate not authorized for digital signatures (keyUsage)');
  }
  const scheme = signatureSchemeFor(digestOid, sigOid);
  const digestName = digestNameForOid(digestOid);
  if (scheme === undefined || digestName === undefined) {
    return verifyError(`unsupported signature algorithm: ${digestOid} with ${sigOid}`);
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: cert.subjectPublicKeyInfo, format: 'der', type: 'spki' });
  } catch (err) {
    return verifyError(`unusable public key: ${messageOf(err)}`);
  }
  if (!keyMatchesFamily(key, scheme.keyFamily)) {
    return verifyError(
      `public key type ${key.asymmetricKeyType ?? 'unknown'} does not match ${sigOid}`,
    );
  }

  let signedBytes = sigFileBytes;
  if (signerInfo.signedAttrs !== null) {
    const check = checkSignedAttributes(
      signerInfo.signedAttrs,
      signedData.encapContentType,
      digestName,
      sigFileBytes,
      minSdk,
      maxSdk,
    );
    if (check.kind === 'verify-error') return verifyError(check.message);
    if (check.kind === 'parse-error') {
      return { kind: 'error', issue: issue(V1IssueCode.JAR_SIG_PARSE_EXCEPTION, check.message) };
    }
    if (check.kind === 'mismatch') return { kind: 'not-verified' };
    signedBytes = check.signedBytes;
  }
  let ok: boolean;
  try {
    ok = cryptoVerify(
      scheme.hash,
      signedBytes,
      scheme.keyFamily === 'rsa' ? key : { key, dsaEncoding: 'der' },
      signerInfo.signature,
    );
  } catch (err) {
    return verifyError(`signature verification failed: ${messageOf(err)}`);
  }
  return ok ? { kind: 'verified', cert } : { kind: 'not-verified' };
}

function keyMatchesFamily(key: KeyObject, family: KeyFamily): boolean {
  return key.asymmetricKeyType === family;
}

function findCertificate(
  certificates: readonly X509Certificate[],
  signerInfo: SignerInfo,
): X509Certificate | undefined {
  const id = signerInfo.issuerAndSerialNumber;
  if (id === null) return undefined; // Android supports only issuerAndSerialNumber
  return certificates.find(
    (c) => c.serialNumber === id.serialNumber && namesEqual(c.issuer, id.issuer),
  );
}

/**
 * The leaf followed by its issuers, found by subject/issuer name (apksig getCertificateChain):
 * at each step the first unused certificate, in block order, whose subject is the current
 * issuer. Certificates are indexed by name once; apksig's scan of the unused list at every step
 * costs n²/2 name comparisons, which a hostile block with thousands of certificates turns into
 * minutes (figures in docs/benchmarks.md, "Measurements behind design choices").
 */
export function certificateChain(
  certificates: readonly X509Certificate[],
  leaf: X509Certificate,
): X509Certificate[] {
  const leafIndex = certificates.indexOf(leaf);
  const bySubject = new Map<string, number[]>();
  certificates.forEach((c, i) => {
    if (i === leafIndex) return;
    const key = nameKey(c.subject);
    const list = bySubject.get(key);
    if (list === undefined) bySubject.set(key, [i]);
    else list.push(i);
  });
  const chain = [leaf];
  let root = leaf;
  while (!namesEqual(root.subject, root.issuer)) {
    const next = bySubject.get(nameKey(root.issuer))?.shift();
    if (next === undefined) break;
    root = certificates[next] as X509Certificate;
    chain.push(root);
  }
  return chain;
}
