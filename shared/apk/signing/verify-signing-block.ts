/**
 * Parses and checks the v3.1, v3 and v2 blocks of the APK Signing Block in the order, and with the
 * platform ranges, that AOSP apksig `ApkVerifier.verify` uses (v3.1 for any range its signers
 * target, v3 from 28, v2 from 24 and only when minSdk < 28 or no newer block was found). Signatures over signed-data are
 * verified here; the file digests come later from the single streaming pass (`finishSchemes`).
 */
import { appendIssues, issue, type ApkIssue } from '../issues';
import type { RandomAccessSource } from '../random-access';
import type { ZipSections } from '../zip/types';
import { checkIntegrity } from './check-integrity';
import {
  BlockId,
  findSchemeBlock,
  findSigningBlock,
  type SigningBlock,
} from './find-signing-block';
import { allErrors, schemeHasErrors, type SchemeResult } from './scheme-result';
import type { ContentDigestAlgorithm } from './signature-algorithms';
import { verifyV2Scheme } from './verify-v2-scheme';
import { MIN_SDK_WITH_V3_SUPPORT, verifyV3Scheme } from './verify-v3-scheme';

export const SCHEME_ID = { V2: 2, V3: 3, V31: 31 } as const;
const MIN_SDK_WITH_V2_SUPPORT = 24;

export interface ParsedSchemes {
  readonly block: SigningBlock | null;
  /** In apksig's order: v3.1, v3, v2 (those present and reached). */
  readonly results: SchemeResult[];
  /** Scheme IDs whose blocks were found (apksig `foundApkSigSchemeIds`). */
  readonly foundSchemeIds: Set<number>;
  /** Errors not tied to one scheme (e.g. v3.1 without v3). */
  readonly errors: ApkIssue[];
}

export async function parseSigningSchemes(
  source: RandomAccessSource,
  sections: ZipSections,
  minSdk: number,
  maxSdk: number,
): Promise<ParsedSchemes> {
  const lookup = await findSigningBlock(source, sections);
  const block = lookup.found ? lookup.block : null;
  const found = new Set<number>();
  const results: SchemeResult[] = [];
  const errors: ApkIssue[] = [];
  const parsed: ParsedSchemes = { block, results, foundSchemeIds: found, errors };
  if (block === null) return parsed;
  const v31 = findSchemeBlock(block, BlockId.V31);
  let rotationMinSdk = 0;
  if (v31 !== null) {
    // apksig V3SchemeVerifier.Builder.build(): "allow any range for V3.1 as long as V3.0 covers
    // the rest of the range" (minSdk := maxSdk for the v3.1 block).
    const r = verifyV3Scheme(v31, { scheme: 'V31', minSdk: maxSdk, maxSdk });
    found.add(SCHEME_ID.V31);
    // A loop, not Math.min(...signers): spreading a hostile block's signers overflows the stack.
    rotationMinSdk = r.signers.length === 0 ? 0 : Infinity;
    for (const s of r.signers) rotationMinSdk = Math.min(rotationMinSdk, s.minSdk);
    results.push(r);
    if (schemeHasErrors(r)) return parsed;
  }
  const v3 = findSchemeBlock(block, BlockId.V3);
  if (v3 !== null) {
    const r = verifyV3Scheme(v3, {
      scheme: 'V3',
      minSdk: Math.max(minSdk, MIN_SDK_WITH_V3_SUPPORT),
      maxSdk,
      ...(rotationMinSdk > 0 ? { rotationMinSdk } : {}),
    });
    found.add(SCHEME_ID.V3);
    results.push(r);
    if (schemeHasErrors(r)) return parsed;
  } else if (found.has(SCHEME_ID.V31)) {
    errors.push(
      issue('V31_BLOCK_FOUND_WITHOUT_V3_BLOCK', 'v3.1 signing block found without a v3.0 block'),
    );
    return parsed;
  }
  if (minSdk < MIN_SDK_WITH_V3_SUPPORT || found.size === 0) {
    const v2 = findSchemeBlock(block, BlockId.V2);
    if (v2 !== null) {
      const r = verifyV2Scheme(v2, {
        minSdk: Math.max(minSdk, MIN_SDK_WITH_V2_SUPPORT),
        supportedSchemeIds: new Set([SCHEME_ID.V2, SCHEME_ID.V3]),
        foundSchemeIds: new Set(found),
      });
      found.add(SCHEME_ID.V2);
      results.push(r);
    }
  }
  return parsed;
}

/** Content digests the streaming pass must compute for the parsed schemes. */
export function digestsNeeded(parsed: ParsedSchemes): Set<ContentDigestAlgorithm> {
  const out = new Set<ContentDigestAlgorithm>();
  for (const r of parsed.results) for (const d of r.digestsToVerify) out.add(d);
  return out;
}

/**
 * Applies the computed digests scheme by scheme, stopping at the first scheme with errors as
 * apksig does; returns all errors so far.
 */
export function finishSchemes(
  parsed: ParsedSchemes,
  digests: ReadonlyMap<ContentDigestAlgorithm, Buffer>,
  sections: ZipSections,
): ApkIssue[] {
  const errors: ApkIssue[] = [];
  for (const r of parsed.results) {
    if (!schemeHasErrors(r) && parsed.block !== null) {
      checkIntegrity(r, digests, {
        signingBlockOffset: parsed.block.offset,
        cdOffset: sections.cdOffset,
      });
    }
    appendIssues(errors, allErrors(r));
    if (errors.length > 0) return errors;
  }
  return [...errors, ...parsed.errors];
}
