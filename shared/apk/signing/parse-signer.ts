/**
 * The part of a v2/v3 signer block both schemes share: signatures over signed-data (verified with
 * the strongest algorithm per platform range), certificates, public-key match and the digests
 * record. Port of the common body of AOSP apksig `V2SchemeVerifier.parseSigner` and
 * `V3SchemeVerifier.parseSigner`; scheme-specific fields are handled by the callers.
 */
import { issue } from '../issues';
import { type ByteReader, MalformedBlockError } from './byte-reader';
import type { SchemeResult, SchemeSigner } from './scheme-result';
import {
  findAlgorithm,
  signaturesToVerify,
  verifySignature,
  type SupportedSignature,
} from './signature-algorithms';
import { canonicalPublicKey, certificatePublicKeyInfo, publicKeyFromSpki } from './x509';

/**
 * Most signature records read from one signer (added hardening; apksig reads them all). A signer
 * lists one record per algorithm it signs with, and there are 13 algorithms; every record of an
 * unknown algorithm is a warning, so a block of millions of tiny records cost seconds and hundreds
 * of megabytes before any signature was checked (test/fixtures/fuzz-regressions/README.md).
 */
export const MAX_SIGNATURE_RECORDS = 64;

/**
 * Most certificates and additional attributes read from one signer's signed data (added
 * hardening; apksig reads them all). They are read after the signature over signed data
 * verified, but anyone can sign with their own key: 1,000,000 unknown attributes (8 MB, a warning
 * each) took 1.4 s, and a 64 MiB block holds 8 times more. Real signers list a certificate or a
 * short chain and a few attributes.
 */
export const MAX_CERTIFICATES = 64;
export const MAX_ADDITIONAL_ATTRIBUTES = 64;

export interface SignerRecords {
  signedData: Buffer;
  signatures: ByteReader;
  publicKey: Buffer;
}

/**
 * Verifies the signatures over signed-data; false after recording an error.
 * `prefix` is `V2_SIG` or `V3_SIG`.
 */
export function verifySignedData(
  prefix: string,
  records: SignerRecords,
  sdkRange: { min: number; max: number },
  signer: SchemeSigner,
  result: SchemeResult,
): boolean {
  const supported: SupportedSignature[] = [];
  const read = readRecords(
    prefix,
    records.signatures,
    signer,
    {
      max: MAX_SIGNATURE_RECORDS,
      code: 'MAX_SIGNATURE_RECORDS_EXCEEDED',
      what: 'signature records',
    },
    { code: 'MALFORMED_SIGNATURE', what: 'signature record' },
    (sig) => {
      const id = sig.uint32();
      const bytes = sig.lengthPrefixed();
      signer.signatureAlgorithmIds.push(id);
      const algorithm = findAlgorithm(id);
      if (algorithm === undefined) {
        signer.warnings.push(
          issue(
            `${prefix}_UNKNOWN_SIG_ALGORITHM`,
            `Unknown signature algorithm: 0x${id.toString(16)}`,
          ),
        );
        return;
      }
      supported.push({ algorithm, signature: bytes });
    },
  );
  if (!read) return false;
  if (signer.signatureAlgorithmIds.length === 0) {
    signer.errors.push(issue(`${prefix}_NO_SIGNATURES`, 'No signatures'));
    return false;
  }
  const toVerify = signaturesToVerify(supported, sdkRange.min, sdkRange.max);
  if (toVerify === null) {
    signer.errors.push(
      issue(`${prefix}_NO_SUPPORTED_SIGNATURES`, 'No supported signatures for the platform range'),
    );
    return false;
  }
  for (const sig of toVerify) {
    const key = publicKeyFromSpki(records.publicKey);
    if (key === null || key.asymmetricKeyType !== sig.algorithm.keyType) {
      signer.errors.push(
        issue(`${prefix}_MALFORMED_PUBLIC_KEY`, `Malformed public key for ${sig.algorithm.name}`),
      );
      return false;
    }
    let ok: boolean;
    try {
      ok = verifySignature(sig.algorithm, key, records.signedData, sig.signature);
    } catch (err) {
      signer.errors.push(
        issue(
          `${prefix}_VERIFY_EXCEPTION`,
          `Failed to verify ${sig.algorithm.name} signature: ${String(err)}`,
        ),
      );
      return false;
    }
    if (!ok) {
      signer.errors.push(
        issue(
          `${prefix}_DID_NOT_VERIFY`,
          `${sig.algorithm.name} signature over signed-data did not verify`,
        ),
      );
      return false;
    }
    result.digestsToVerify.add(sig.algorithm.digest);
  }
  return true;
}

/** Reads certificates and digests from signed-data; false after recording an error. */
export function readCertificatesAndDigests(
  prefix: string,
  certificates: ByteReader,
  digests: ByteReader,
  publicKey: Buffer,
  signer: SchemeSigner,
): boolean {
  let index = -1;
  while (certificates.hasRemaining()) {
    if (signer.certificates.length === MAX_CERTIFICATES) {
      signer.errors.push(
        issue(`${prefix}_MAX_CERTIFICATES_EXCEEDED`, `More than ${MAX_CERTIFICATES} certificates`),
      );
      return false;
    }
    index++;
    const cert = certificates.lengthPrefixed();
    if (certificatePublicKeyInfo(cert) === null) {
      signer.errors.push(
        issue(`${prefix}_MALFORMED_CERTIFICATE`, `Malformed certificate #${index + 1}`),
      );
      return false;
    }
    signer.certificates.push(cert);
  }
  const main = signer.certificates[0];
  if (main === undefined) {
    signer.errors.push(issue(`${prefix}_NO_CERTIFICATES`, 'No certificates listed'));
    return false;
  }
  const spki = certificatePublicKeyInfo(main) as Buffer;
  if (!canonicalPublicKey(spki).equals(publicKey)) {
    signer.errors.push(
      issue(
        `${prefix}_PUBLIC_KEY_MISMATCH_BETWEEN_CERTIFICATE_AND_SIGNATURES_RECORD`,
        'Public key mismatch between certificate and signature record',
      ),
    );
    return false;
  }
  let count = 0;
  // More digest records than signatures can only end in the mismatch below: stop reading there.
  while (digests.hasRemaining() && count <= signer.signatureAlgorithmIds.length) {
    count++;
    try {
      const d = digests.lengthPrefixedReader();
      const algorithmId = d.uint32();
      signer.contentDigests.push({ algorithmId, digest: d.lengthPrefixed() });
    } catch (err) {
      if (!(err instanceof MalformedBlockError)) throw err;
      signer.errors.push(issue(`${prefix}_MALFORMED_DIGEST`, `Malformed digest record #${count}`));
      return false;
    }
  }
  const fromSignatures = signer.signatureAlgorithmIds;
  const fromDigests = signer.contentDigests.map((d) => d.algorithmId);
  if (
    fromSignatures.length !== fromDigests.length ||
    fromSignatures.some((id, i) => id !== fromDigests[i])
  ) {
    signer.errors.push(
      issue(
        `${prefix}_SIG_ALG_MISMATCH_BETWEEN_SIGNATURES_AND_DIGESTS_RECORDS`,
        'Signature algorithms differ between signatures and digests records',
      ),
    );
    return false;
  }
  return true;
}

/**
 * Reads a signer's additional attributes into `signer.additionalAttributes`, at most
 * MAX_ADDITIONAL_ATTRIBUTES. `known` handles an attribute the scheme knows (it may throw
 * MalformedBlockError) and answers false for an id it does not know, which is warned about.
 * False after recording an error (too many attributes, or a malformed one).
 * `prefix` is `V2_SIG` or `V3_SIG`.
 */
export function readAdditionalAttributes(
  prefix: string,
  attrs: ByteReader,
  signer: SchemeSigner,
  known: (id: number, value: Buffer) => boolean,
): boolean {
  return readRecords(
    prefix,
    attrs,
    signer,
    {
      max: MAX_ADDITIONAL_ATTRIBUTES,
      code: 'MAX_ADDITIONAL_ATTRIBUTES_EXCEEDED',
      what: 'additional attributes',
    },
    { code: 'MALFORMED_ADDITIONAL_ATTRIBUTE', what: 'additional attribute' },
    (attr) => {
      const id = attr.uint32();
      const value = attr.rest();
      signer.additionalAttributes.push({ id, value });
      if (!known(id, value)) {
        signer.warnings.push(
          issue(
            `${prefix}_UNKNOWN_ADDITIONAL_ATTRIBUTE`,
            `Unknown additional attribute 0x${id.toString(16)}`,
          ),
        );
      }
    },
  );
}

/**
 * Reads the length-prefixed records of `list` with `read`, at most `limit.max` of them; false
 * after recording an error: `<prefix>_<limit.code>` for one record too many, or
 * `<prefix>_<malformed.code>` for one that does not parse (records numbered from 1).
 */
function readRecords(
  prefix: string,
  list: ByteReader,
  signer: SchemeSigner,
  limit: { max: number; code: string; what: string },
  malformed: { code: string; what: string },
  read: (record: ByteReader) => void,
): boolean {
  let count = 0;
  while (list.hasRemaining()) {
    if (count === limit.max) {
      signer.errors.push(issue(`${prefix}_${limit.code}`, `More than ${limit.max} ${limit.what}`));
      return false;
    }
    count++;
    try {
      read(list.lengthPrefixedReader());
    } catch (err) {
      if (!(err instanceof MalformedBlockError)) throw err;
      signer.errors.push(
        issue(`${prefix}_${malformed.code}`, `Malformed ${malformed.what} #${count}`),
      );
      return false;
    }
  }
  return true;
}
