/**
 * APK Signature Scheme v3 proof-of-rotation lineage: parsing with verification of each node by its
 * parent, lookup of a certificate's sub-lineage, and consolidation of several signers' lineages.
 * Port of AOSP apksig `internal/apk/v3/V3SigningCertificateLineage.readSigningCertificateLineage`
 * and `SigningCertificateLineage` (`readFromV3AttributeValue`, `getSubLineage`,
 * `consolidateLineages`, `mergeLineageWith`). Certificates stay in their original DER bytes.
 */
import { ByteReader, MalformedBlockError } from './byte-reader';
import { findAlgorithm, verifySignature } from './signature-algorithms';
import { canonicalPublicKey, certificatePublicKeyInfo, publicKeyFromSpki } from './x509';

export interface LineageNode {
  /** Signing certificate DER. */
  readonly certificate: Buffer;
  /** Algorithm the parent used to sign this node (from the signed data; 0 for the first). */
  readonly parentSigAlgorithmId: number;
  /** Algorithm this node's certificate uses to sign the next node (0 for the last). */
  readonly sigAlgorithmId: number;
  readonly signature: Buffer;
  readonly flags: number;
}

export type Lineage = readonly LineageNode[];

/** `SigningCertificateLineage.CURRENT_VERSION`: the attribute value starts with it. */
export const LINEAGE_VERSION = 1;

/**
 * Most nodes read from a lineage (added hardening; apksig reads them all). Each node costs a
 * signature verification by its parent's key, and anyone can sign a long chain with their own
 * key, and a signing block has room for tens of thousands of nodes per signer, seconds of work
 * (test/fixtures/fuzz-regressions/README.md). One node is added per key rotation, so real
 * lineages are a handful long.
 */
export const MAX_LINEAGE_NODES = 64;

/** A node whose parent's signature does not verify (apksig: SecurityException). */
export class LineageVerificationError extends Error {}

/** Parses the v3 proof-of-rotation attribute value; throws MalformedBlockError or LineageVerificationError. */
export function readLineageAttribute(value: Buffer): Lineage {
  const input = new ByteReader(value);
  const version = input.uint32();
  if (version !== LINEAGE_VERSION) {
    throw new MalformedBlockError(`unsupported signing certificate lineage version ${version}`);
  }
  if (!input.hasRemaining()) throw new MalformedBlockError('empty signing certificate lineage');
  const nodes: LineageNode[] = [];
  let last: LineageNode | undefined;
  while (input.hasRemaining()) {
    if (nodes.length === MAX_LINEAGE_NODES) {
      throw new MalformedBlockError(`more than ${MAX_LINEAGE_NODES} certificates in the lineage`);
    }
    const index = nodes.length + 1;
    const node = input.lengthPrefixedReader();
    const signedDataBytes = node.lengthPrefixed();
    const flags = node.uint32();
    const sigAlgorithmId = node.uint32();
    const signature = node.lengthPrefixed();
    if (last !== undefined) {
      // The parent signs with the algorithm recorded on the parent's node.
      const algorithm = findAlgorithm(last.sigAlgorithmId);
      if (algorithm === undefined) {
        throw new MalformedBlockError(`unknown lineage signature algorithm ${last.sigAlgorithmId}`);
      }
      const spki = certificatePublicKeyInfo(last.certificate);
      const key = spki && publicKeyFromSpki(canonicalPublicKey(spki));
      let ok: boolean;
      try {
        ok = key !== null && verifySignature(algorithm, key, signedDataBytes, signature);
      } catch {
        ok = false;
      }
      if (!ok)
        throw new LineageVerificationError(`Unable to verify signature of certificate #${index}`);
    }
    const signedData = new ByteReader(signedDataBytes);
    const certificate = signedData.lengthPrefixed();
    const parentSigAlgorithmId = signedData.uint32();
    if (last !== undefined && last.sigAlgorithmId !== parentSigAlgorithmId) {
      throw new LineageVerificationError(`Signing algorithm ID mismatch for certificate #${index}`);
    }
    if (certificatePublicKeyInfo(certificate) === null) {
      throw new LineageVerificationError(`Failed to decode certificate #${index}`);
    }
    last = { certificate, parentSigAlgorithmId, sigAlgorithmId, signature, flags };
    nodes.push(last);
  }
  return nodes;
}

/** Nodes up to and including `certificate`, or `null` when it is not in the lineage. */
export function subLineage(lineage: Lineage, certificate: Buffer): Lineage | null {
  const i = lineage.findIndex((n) => n.certificate.equals(certificate));
  return i < 0 ? null : lineage.slice(0, i + 1);
}

/** apksig `mergeLineageWith`; throws when the lineages neither descend from nor extend each other. */
function merge(self: Lineage, other: Lineage): Lineage {
  const first = self[0];
  if (first === undefined) throw new Error('empty lineage');
  const [descendant, ancestor] = other.some((n) => n.certificate.equals(first.certificate))
    ? [self, other]
    : [other, self];
  let ai = 0;
  let di = 0;
  let dNode = descendant[di++] as LineageNode;
  const merged: LineageNode[] = [];
  while (ai < ancestor.length) {
    const aNode = ancestor[ai++] as LineageNode;
    if (aNode.certificate.equals(dNode.certificate)) break;
    merged.push(aNode);
  }
  if (ai === merged.length) {
    throw new Error('The provided lineage is not a descendant or an ancestor of this lineage');
  }
  merged.push(dNode);
  while (ai < ancestor.length && di < descendant.length) {
    const aNode = ancestor[ai++] as LineageNode;
    dNode = descendant[di++] as LineageNode;
    if (!aNode.certificate.equals(dNode.certificate)) {
      throw new Error('The provided lineage diverges from this lineage');
    }
    merged.push(dNode);
  }
  while (ai < ancestor.length) merged.push(ancestor[ai++] as LineageNode);
  while (di < descendant.length) merged.push(descendant[di++] as LineageNode);
  return merged;
}

/** One lineage covering all signers' lineages, `null` for none; throws when inconsistent. */
export function consolidateLineages(lineages: readonly Lineage[]): Lineage | null {
  const [first, ...rest] = lineages;
  if (first === undefined) return null;
  return rest.reduce<Lineage>((acc, l) => merge(acc, l), first);
}
