/**
 * Compares each signer's recorded content digests with the digests computed in the streaming pass.
 * Port of the comparison half of AOSP apksig `ApkSigningBlockUtils.verifyIntegrity`, including its
 * verity precondition that the signing block starts and ends on 4 KiB boundaries.
 */
import { issue } from '../issues';
import type { SchemeResult } from './scheme-result';
import { findAlgorithm, type ContentDigestAlgorithm } from './signature-algorithms';

const PAGE = 4096;

export function checkIntegrity(
  result: SchemeResult,
  actual: ReadonlyMap<ContentDigestAlgorithm, Buffer>,
  layout: { signingBlockOffset: number; cdOffset: number },
): void {
  const prefix = result.scheme === 'V2' ? 'V2_SIG' : 'V3_SIG';
  if (
    result.digestsToVerify.has('VERITY_CHUNKED_SHA256') &&
    (layout.signingBlockOffset % PAGE !== 0 ||
      (layout.cdOffset - layout.signingBlockOffset) % PAGE !== 0)
  ) {
    result.errors.push(
      issue(
        `${prefix}_APK_DIGEST_DID_NOT_VERIFY`,
        'APK Signing Block is not aligned on 4 KiB for verity',
      ),
    );
    return;
  }
  for (const signer of result.signers) {
    for (const expected of signer.contentDigests) {
      const algorithm = findAlgorithm(expected.algorithmId);
      if (algorithm === undefined || !result.digestsToVerify.has(algorithm.digest)) continue;
      const computed = actual.get(algorithm.digest);
      if (computed === undefined || !computed.equals(expected.digest)) {
        signer.errors.push(
          issue(
            `${prefix}_APK_DIGEST_DID_NOT_VERIFY`,
            `APK integrity check failed. ${algorithm.digest} digest mismatch. Expected: <${expected.digest.toString('hex')}>, actual: <${computed?.toString('hex') ?? 'none'}>`,
          ),
        );
      }
    }
  }
}
