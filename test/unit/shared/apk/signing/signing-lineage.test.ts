import { sign } from 'node:crypto';
import {
  consolidateLineages,
  LineageVerificationError,
  readLineageAttribute,
  subLineage,
  type LineageNode,
} from '../../../../../shared/apk/signing/signing-lineage';
import { MalformedBlockError } from '../../../../../shared/apk/signing/byte-reader';
import { makeSigner, type TestSigner } from '../../../../helpers/apk/fake-cert';

const ECDSA_SHA256 = 0x0201;
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const lp = (b: Buffer): Buffer => Buffer.concat([u32(b.length), b]);

/** Encodes a lineage as apksig's V3SigningCertificateLineage does (version, then nodes). */
function encodeLineage(
  signers: TestSigner[],
  opts: { corruptNode?: number; wrongParentAlg?: boolean } = {},
): Buffer {
  const nodes = signers.map((s, i) => {
    const parentAlg = i === 0 ? 0 : opts.wrongParentAlg ? 0x0103 : ECDSA_SHA256;
    const signedData = Buffer.concat([lp(s.cert), u32(parentAlg)]);
    const parent = signers[i - 1];
    let signature =
      parent === undefined ? Buffer.alloc(0) : sign('sha256', signedData, parent.privateKey);
    if (opts.corruptNode === i)
      signature = Buffer.from(signature.map((x, j) => (j === 10 ? x ^ 1 : x)));
    const ownAlg = i === signers.length - 1 ? 0 : ECDSA_SHA256;
    return lp(Buffer.concat([lp(signedData), u32(0x17), u32(ownAlg), lp(signature)]));
  });
  return Buffer.concat([u32(1), ...nodes]);
}

describe('v3 signing certificate lineage', () => {
  const [a, b, c] = [makeSigner(1), makeSigner(2), makeSigner(3)] as [
    TestSigner,
    TestSigner,
    TestSigner,
  ];

  test('parses and verifies each node with its parent key', () => {
    const lineage = readLineageAttribute(encodeLineage([a, b, c]));
    expect(lineage.map((n) => n.certificate)).toEqual([a.cert, b.cert, c.cert]);
    expect(lineage.map((n) => n.flags)).toEqual([0x17, 0x17, 0x17]);
    expect(subLineage(lineage, b.cert)?.length).toBe(2);
    expect(subLineage(lineage, makeSigner(9).cert)).toBeNull();
  });

  test('a node not signed by its parent fails verification', () => {
    expect(() => readLineageAttribute(encodeLineage([a, b, c], { corruptNode: 2 }))).toThrow(
      LineageVerificationError,
    );
    expect(() => readLineageAttribute(encodeLineage([a, b], { wrongParentAlg: true }))).toThrow(
      LineageVerificationError,
    );
  });

  test('wrong version, truncation and emptiness are malformed', () => {
    const good = encodeLineage([a, b]);
    const v2 = Buffer.from(good);
    v2.writeUInt32LE(2, 0);
    expect(() => readLineageAttribute(v2)).toThrow(MalformedBlockError);
    expect(() => readLineageAttribute(good.subarray(0, good.length - 3))).toThrow(
      MalformedBlockError,
    );
    expect(() => readLineageAttribute(u32(1))).toThrow(MalformedBlockError);
  });

  test('consolidation merges ancestor and descendant lineages, refuses divergent ones', () => {
    const node = (s: TestSigner): LineageNode => ({
      certificate: s.cert,
      parentSigAlgorithmId: 0,
      sigAlgorithmId: 0,
      signature: Buffer.alloc(0),
      flags: 0,
    });
    const ab = [node(a), node(b)];
    const bc = [node(b), node(c)];
    const abc = [node(a), node(b), node(c)];
    expect(consolidateLineages([ab, abc])?.map((n) => n.certificate)).toEqual([
      a.cert,
      b.cert,
      c.cert,
    ]);
    expect(consolidateLineages([ab, bc])?.map((n) => n.certificate)).toEqual([
      a.cert,
      b.cert,
      c.cert,
    ]);
    expect(consolidateLineages([])).toBeNull();
    const d = makeSigner(4);
    expect(() => consolidateLineages([abc, [node(a), node(d)]])).toThrow(/diverges/);
    expect(() => consolidateLineages([ab, [node(c), node(d)]])).toThrow(/not a descendant/);
  });

  test('a lineage of more than 64 certificates is refused after the 64th (found by fuzzing)', () => {
    // Anyone can sign a long chain with their own key; every node costs a signature check.
    expect(readLineageAttribute(encodeLineage(Array<TestSigner>(64).fill(a)))).toHaveLength(64);
    const long = encodeLineage(Array<TestSigner>(1000).fill(a));
    expect(() => readLineageAttribute(long)).toThrow(MalformedBlockError);
    expect(() => readLineageAttribute(long)).toThrow(/more than 64/);
  });
});
