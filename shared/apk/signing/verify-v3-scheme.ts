/**
 * APK Signature Scheme v3 (block 0xf05368c0) and v3.1 (block 0x1b93ad61): per-signer SDK ranges,
 * proof-of-rotation lineage, the rotation-min-sdk-version attribute tying v3.0 to v3.1, and the
 * checks that signers cover the platform range without holes and that lineages only grow.
 * Port of AOSP apksig `internal/apk/v3/V3SchemeVerifier.java` (`verify`, `parseSigner`,
 * `signerTargetsDevRelease`). File digests are checked afterwards by `check-integrity.ts`.
 */
import { issue } from '../issues';
import { ByteReader, MalformedBlockError } from './byte-reader';
import {
  readAdditionalAttributes,
  readCertificatesAndDigests,
  verifySignedData,
} from './parse-signer';
import { forEachSigner } from './for-each-signer';
import { newSchemeResult, newSigner, type SchemeResult, type SchemeSigner } from './scheme-result';
import {
  consolidateLineages,
  LineageVerificationError,
  readLineageAttribute,
  subLineage,
  type Lineage,
} from './signing-lineage';

export const PROOF_OF_ROTATION_ATTR_ID = 0x3ba06f8c;
export const ROTATION_MIN_SDK_VERSION_ATTR_ID = 0x559f8b02;
export const ROTATION_ON_DEV_RELEASE_ATTR_ID = 0xc2a6b3ba;
export const MIN_SDK_WITH_V3_SUPPORT = 28;
export const MIN_SDK_WITH_V31_SUPPORT = 33;
const PREFIX = 'V3_SIG';
/**
 * Most signers read from a v3 / v3.1 block. Each signer targets its own SDK range, so real blocks
 * hold one or two; apksig sets no limit, we use its v1/v2 one (Constants.MAX_APK_SIGNERS).
 */
export const MAX_V3_SIGNERS = 10;

export interface V3Options {
  readonly scheme: 'V3' | 'V31';
  /** max(apk minSdk, 28) for v3, max(apk minSdk, 33) for v3.1. */
  readonly minSdk: number;
  readonly maxSdk: number;
  /** Lowest minSdk of the v3.1 signers, when a v3.1 block verified (v3.0 only). */
  readonly rotationMinSdk?: number;
}

function readLineage(value: Buffer, signer: SchemeSigner): void {
  try {
    const lineage = readLineageAttribute(value);
    signer.lineage = lineage;
    const sub = subLineage(lineage, signer.certificates[0] as Buffer);
    if (sub === null || sub.length !== lineage.length) {
      signer.errors.push(
        issue('V3_SIG_POR_CERT_MISMATCH', 'Signing certificate is not the newest in its lineage'),
      );
    }
  } catch (err) {
    if (err instanceof LineageVerificationError) {
      signer.errors.push(issue('V3_SIG_POR_DID_NOT_VERIFY', err.message));
    } else {
      signer.errors.push(
        issue('V3_SIG_MALFORMED_LINEAGE', err instanceof Error ? err.message : String(err)),
      );
    }
  }
}

function readAttributes(attrs: ByteReader, signer: SchemeSigner, opts: V3Options): void {
  let rotationAttrFound = false;
  const complete = readAdditionalAttributes(PREFIX, attrs, signer, (id, value) => {
    if (id === PROOF_OF_ROTATION_ATTR_ID) {
      readLineage(value, signer);
    } else if (id === ROTATION_MIN_SDK_VERSION_ATTR_ID) {
      rotationAttrFound = true;
      if (opts.maxSdk >= MIN_SDK_WITH_V31_SUPPORT) {
        if (value.length < 4) throw new MalformedBlockError('rotation-min-sdk-version too short');
        const attrValue = value.readInt32LE(0);
        if (opts.rotationMinSdk === undefined) {
          signer.errors.push(
            issue(
              'V31_BLOCK_MISSING',
              `v3 signer expects a v3.1 block rotating at SDK ${attrValue}`,
            ),
          );
        } else if (attrValue !== opts.rotationMinSdk) {
          signer.errors.push(
            issue(
              'V31_ROTATION_MIN_SDK_MISMATCH',
              `rotation-min-sdk-version ${attrValue} differs from the v3.1 signers' ${opts.rotationMinSdk}`,
            ),
          );
        }
      }
    } else if (id === ROTATION_ON_DEV_RELEASE_ATTR_ID) {
      if (opts.scheme !== 'V31') {
        signer.warnings.push(
          issue(
            'V31_ROTATION_TARGETS_DEV_RELEASE_ATTR_ON_V3_SIGNER',
            'dev-release attribute on a v3.0 signer',
          ),
        );
      }
    } else {
      return false;
    }
    return true;
  });
  if (!complete) return;
  if (opts.rotationMinSdk !== undefined && !rotationAttrFound) {
    signer.warnings.push(
      issue('V31_ROTATION_MIN_SDK_ATTR_MISSING', 'v3.0 signer lacks rotation-min-sdk-version'),
    );
  }
}

function parseSigner(
  block: ByteReader,
  signer: SchemeSigner,
  result: SchemeResult,
  opts: V3Options,
): void {
  const signedData = block.lengthPrefixed();
  signer.minSdk = block.int32();
  signer.maxSdk = block.int32();
  if (signer.minSdk < 0 || signer.minSdk > signer.maxSdk) {
    signer.errors.push(
      issue('V3_SIG_INVALID_SDK_VERSIONS', `Invalid SDK range ${signer.minSdk}..${signer.maxSdk}`),
    );
  }
  const signatures = block.lengthPrefixedReader();
  const publicKey = block.lengthPrefixed();
  const range = { min: signer.minSdk, max: signer.maxSdk };
  if (!verifySignedData(PREFIX, { signedData, signatures, publicKey }, range, signer, result))
    return;
  const data = new ByteReader(signedData);
  const digests = data.lengthPrefixedReader();
  const certificates = data.lengthPrefixedReader();
  const signedMin = data.int32();
  if (signedMin !== signer.minSdk) {
    signer.errors.push(
      issue(
        'V3_MIN_SDK_VERSION_MISMATCH_BETWEEN_SIGNER_AND_SIGNED_DATA_RECORD',
        'minSdk differs in signed data',
      ),
    );
  }
  const signedMax = data.int32();
  if (signedMax !== signer.maxSdk) {
    signer.errors.push(
      issue(
        'V3_MAX_SDK_VERSION_MISMATCH_BETWEEN_SIGNER_AND_SIGNED_DATA_RECORD',
        'maxSdk differs in signed data',
      ),
    );
  }
  const attributes = data.lengthPrefixedReader();
  if (!readCertificatesAndDigests(PREFIX, certificates, digests, publicKey, signer)) return;
  readAttributes(attributes, signer, opts);
}

const targetsDevRelease = (s: SchemeSigner): boolean =>
  s.additionalAttributes.some((a) => a.id === ROTATION_ON_DEV_RELEASE_ATTR_ID);

/** Signers must cover [minSdk, maxSdk] (or up to rotationMinSdk - 1) and lineages only grow. */
function checkSdkCoverage(result: SchemeResult, opts: V3Options): void {
  const sorted = [...new Map(result.signers.map((s) => [s.maxSdk, s] as const)).values()].sort(
    (a, b) => a.maxSdk - b.maxSdk,
  );
  let firstMin = 0;
  let lastMax = 0;
  let lastLineageSize = 0;
  const lineages: Lineage[] = [];
  for (const signer of sorted) {
    if (firstMin === 0) {
      firstMin = signer.minSdk;
    } else if (
      signer.minSdk !== lastMax + 1 &&
      !(signer.minSdk === lastMax && targetsDevRelease(signer))
    ) {
      result.errors.push(
        issue('V3_INCONSISTENT_SDK_VERSIONS', 'v3 signers leave a gap or overlap in SDK versions'),
      );
      break;
    }
    lastMax = signer.maxSdk;
    if (signer.lineage !== null) {
      if (signer.lineage.length < lastLineageSize) {
        result.errors.push(
          issue('V3_INCONSISTENT_LINEAGES', 'Lineage shrinks for newer platform versions'),
        );
        break;
      }
      lastLineageSize = signer.lineage.length;
      lineages.push(signer.lineage);
    }
  }
  const needMax = opts.rotationMinSdk !== undefined ? opts.rotationMinSdk - 1 : opts.maxSdk;
  if (firstMin > opts.minSdk || lastMax < needMax) {
    result.errors.push(
      issue('V3_MISSING_SDK_VERSIONS', `v3 signers cover only SDK ${firstMin}..${lastMax}`),
    );
  }
  try {
    result.lineage = consolidateLineages(lineages);
  } catch {
    result.errors.push(
      issue('V3_INCONSISTENT_LINEAGES', 'Signers carry lineages that do not merge'),
    );
  }
}

export function verifyV3Scheme(schemeBlock: Buffer, opts: V3Options): SchemeResult {
  const result = newSchemeResult(opts.scheme);
  const count = forEachSigner(
    PREFIX,
    schemeBlock,
    result,
    newSigner,
    (block, signer) => parseSigner(block, signer, result, opts),
    MAX_V3_SIGNERS,
  );
  if (count > MAX_V3_SIGNERS) {
    // Added hardening (apksig has no limit for v3): see MAX_V3_SIGNERS.
    result.errors.push(
      issue('V3_SIG_MAX_SIGNATURES_EXCEEDED', `More than ${MAX_V3_SIGNERS} signers`),
    );
  }
  if (result.errors.length > 0 || result.signers.some((s) => s.errors.length > 0)) return result;
  checkSdkCoverage(result, opts);
  return result;
}
