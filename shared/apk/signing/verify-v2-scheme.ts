/**
 * APK Signature Scheme v2 (block 0x7109871a): signers, signatures over signed-data, certificates,
 * digests and additional attributes, including stripping protection (0xbeeff00d) naming a newer
 * scheme that must then be present. Port of AOSP apksig `internal/apk/v2/V2SchemeVerifier.java`
 * (`parseSigners` / `parseSigner`). The digests of the file are checked afterwards by
 * `check-integrity.ts` from the single streaming pass.
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

export const STRIPPING_PROTECTION_ATTR_ID = 0xbeeff00d;
/** apksig `Constants.MAX_APK_SIGNERS`. */
export const MAX_APK_SIGNERS = 10;
const INT_MAX = 0x7fffffff;
const PREFIX = 'V2_SIG';

export interface V2Options {
  /** max(apk minSdk, 24). */
  readonly minSdk: number;
  /** Scheme IDs the platform range supports (2 and 3 when no maxSdk is given). */
  readonly supportedSchemeIds: ReadonlySet<number>;
  /** Scheme IDs whose blocks were found before v2 is verified. */
  readonly foundSchemeIds: ReadonlySet<number>;
}

function readAttributes(attrs: ByteReader, signer: SchemeSigner, opts: V2Options): void {
  const expected = new Set<number>();
  const complete = readAdditionalAttributes(PREFIX, attrs, signer, (id, value) => {
    if (id !== STRIPPING_PROTECTION_ATTR_ID) return false;
    if (value.length < 4) throw new MalformedBlockError('stripping protection value too short');
    const schemeId = value.readInt32LE(0);
    if (opts.supportedSchemeIds.has(schemeId)) expected.add(schemeId);
    else
      signer.warnings.push(
        issue(
          'V2_SIG_UNKNOWN_APK_SIG_SCHEME_ID',
          `Unknown scheme ID ${schemeId} in stripping protection`,
        ),
      );
    return true;
  });
  if (!complete) return;
  for (const id of expected) {
    if (!opts.foundSchemeIds.has(id)) {
      signer.errors.push(
        issue(
          'V2_SIG_MISSING_APK_SIG_REFERENCED',
          `v2 signer ${signer.index} references APK Signature Scheme v${id}, which is missing (stripped?)`,
        ),
      );
    }
  }
}

function parseSigner(
  block: ByteReader,
  signer: SchemeSigner,
  result: SchemeResult,
  opts: V2Options,
): void {
  const signedData = block.lengthPrefixed();
  const signatures = block.lengthPrefixedReader();
  const publicKey = block.lengthPrefixed();
  const range = { min: opts.minSdk, max: INT_MAX };
  if (!verifySignedData(PREFIX, { signedData, signatures, publicKey }, range, signer, result))
    return;
  const data = new ByteReader(signedData);
  const digests = data.lengthPrefixedReader();
  const certificates = data.lengthPrefixedReader();
  const attributes = data.lengthPrefixedReader();
  if (!readCertificatesAndDigests(PREFIX, certificates, digests, publicKey, signer)) return;
  readAttributes(attributes, signer, opts);
}

export function verifyV2Scheme(schemeBlock: Buffer, opts: V2Options): SchemeResult {
  const result = newSchemeResult('V2');
  const count = forEachSigner(
    PREFIX,
    schemeBlock,
    result,
    newSigner,
    (block, signer) => parseSigner(block, signer, result, opts),
    MAX_APK_SIGNERS,
  );
  if (count > MAX_APK_SIGNERS) {
    result.errors.push(
      issue('V2_SIG_MAX_SIGNATURES_EXCEEDED', `More than ${MAX_APK_SIGNERS} signers`),
    );
  }
  return result;
}
