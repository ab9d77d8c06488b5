/**
 * Inputs the parser fuzzers (test/resilience/fuzz) found crashing or hanging the APK core, kept
 * as small fixtures (test/fixtures/fuzz-regressions/, see its README) or built here. Each must end
 * in the parsers' own verdict.
 */
import { sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApkFormatError } from '../../../../shared/apk/issues';
import { readManifest } from '../../../../shared/apk/manifest/read-manifest';
import {
  findSchemeBlock,
  findSigningBlock,
} from '../../../../shared/apk/signing/find-signing-block';
import { verifyV2Scheme } from '../../../../shared/apk/signing/verify-v2-scheme';
import { verifyV3Scheme } from '../../../../shared/apk/signing/verify-v3-scheme';
import { bufferSource } from '../../../../shared/apk/sources';
import { verifyApk } from '../../../../shared/apk/verify-apk';
import { findZipSections } from '../../../../shared/apk/zip/find-zip-sections';
import { buildAxml, T_STRING } from '../../../helpers/apk/build-axml';
import { makeSigner } from '../../../helpers/apk/fake-cert';

const FIXTURES = path.resolve(__dirname, '../../../fixtures/fuzz-regressions');

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

/** A manifest whose only element declares `attrSize`-byte attributes and ends where they end. */
function compactAttributes(attrSize: number): Buffer {
  const xml = buildAxml({
    name: 'manifest',
    attrs: [{ name: 'package', type: T_STRING, value: 'a.b' }],
  });
  let el = xml.readUInt16LE(2);
  while (xml.readUInt16LE(el) !== 0x0102) el += xml.readUInt32LE(el + 4);
  const size = xml.readUInt32LE(el + 4);
  const contents = el + xml.readUInt16LE(el + 2);
  const out = Buffer.from(xml);
  out.writeUInt16LE(attrSize, contents + 10);
  const cut = contents - el + out.readUInt16LE(contents + 8) + attrSize;
  out.writeUInt32LE(cut, el + 4);
  const doc = Buffer.concat([out.subarray(0, el + cut), out.subarray(el + size)]);
  doc.writeUInt32LE(doc.length, 4);
  return doc;
}

describe('fuzz regressions: binary XML reader', () => {
  test('an attribute declared under 20 bytes, at the end of its element, is refused (fuzzer input)', () => {
    const xml = readFileSync(path.join(FIXTURES, 'manifest-attribute-size-under-20.axml'));
    const err = thrownBy(() => readManifest(xml));
    expect(err).toBeInstanceOf(ApkFormatError);
    expect(err).toMatchObject({ code: 'MANIFEST_MALFORMED' });
  });

  test.each([16, 17, 18, 19])(
    'attribute size %i with the element cut at its declared end',
    (size) => {
      const err = thrownBy(() => readManifest(compactAttributes(size)));
      expect(err).toBeInstanceOf(ApkFormatError);
      expect(err).toMatchObject({ code: 'MANIFEST_MALFORMED' });
    },
  );

  test('the same layout with 20-byte attributes still parses', () => {
    expect(readManifest(compactAttributes(20)).package).toBe('a.b');
  });
});

/** uint32 length prefix + bytes, as in the APK Signing Block. */
function lp(...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  return Buffer.concat([len, body]);
}

function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return b;
}

/** `apk` with its APK Signing Block replaced by one holding `pairs` (EOCD moved to match). */
function withSigningBlock(apk: Buffer, pairs: Array<{ id: number; value: Buffer }>): Buffer {
  const eocd = apk.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const cdOffset = apk.readUInt32LE(eocd + 16);
  const blockSize = Number(apk.readBigUInt64LE(cdOffset - 24)) + 8;
  const body = Buffer.concat(
    pairs.map(({ id, value }) => {
      const head = Buffer.alloc(12);
      head.writeBigUInt64LE(BigInt(value.length + 4));
      head.writeUInt32LE(id >>> 0, 8);
      return Buffer.concat([head, value]);
    }),
  );
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(body.length + 24));
  const block = Buffer.concat([size, body, size, Buffer.from('APK Sig Block 42', 'latin1')]);
  const start = cdOffset - blockSize;
  const out = Buffer.concat([apk.subarray(0, start), block, apk.subarray(cdOffset)]);
  out.writeUInt32LE(start + block.length, out.length - (apk.length - eocd) + 16);
  return out;
}

/** A v3 / v3.1 scheme block of `n` signers with empty signed data, signatures and key. */
function minimalV3Signers(n: number): Buffer {
  const one = lp(lp(), u32(28), u32(0x7fffffff), lp(), lp());
  return lp(Buffer.alloc(n * one.length).fill(one));
}

const V2_BLOCK_ID = 0x7109871a;
const V3_BLOCK_ID = 0xf05368c0;
const V31_BLOCK_ID = 0x1b93ad61;

describe('fuzz regressions: signature verifier', () => {
  const signedV3 = readFileSync(
    path.resolve(__dirname, '../../../fixtures/apks/signed-v3-only.apk'),
  );

  test('a v3.1 block with 200,000 signers is an error, not a call-stack overflow', async () => {
    const apk = withSigningBlock(signedV3, [
      { id: V31_BLOCK_ID, value: minimalV3Signers(200_000) },
    ]);
    const v = await verifyApk(bufferSource(apk));
    expect(v.verified).toBe(false);
    expect(v.errors.map((e) => e.code)).not.toContain('INTERNAL_ERROR');
    expect(v.errors[0]?.code).toMatch(/^V3_SIG_/);
  });
});

describe('fuzz regressions: issue lists of attacker-chosen length', () => {
  const signedV3 = readFileSync(
    path.resolve(__dirname, '../../../fixtures/apks/signed-v3-only.apk'),
  );

  test('a v2 signer with 200,000 unknown signature algorithms is an error, not a call-stack overflow', async () => {
    // Each unknown algorithm was a warning, and the warnings were spread into push() as
    // arguments. (Since signature records are capped, the list stays short as well.)
    const unknown = lp(u32(0x7777), lp());
    const signatures = Buffer.alloc(200_000 * unknown.length).fill(unknown);
    const signer = lp(lp(), lp(signatures), lp());
    const apk = withSigningBlock(signedV3, [{ id: V2_BLOCK_ID, value: lp(signer) }]);
    const v = await verifyApk(bufferSource(apk));
    expect(v.verified).toBe(false);
    expect(v.errors.map((e) => e.code)).not.toContain('INTERNAL_ERROR');
  });

  test('a signer with 2,000,000 signature records: only 64 are read', async () => {
    // 24 MB of 12-byte records of an unknown algorithm took ~8 s and ~700 MB (a warning each).
    const unknown = lp(u32(0x7777), lp());
    const signatures = Buffer.alloc(2_000_000 * unknown.length).fill(unknown);
    const signer = lp(lp(), lp(signatures), lp());
    const apk = withSigningBlock(signedV3, [{ id: V2_BLOCK_ID, value: lp(signer) }]);
    const v = await verifyApk(bufferSource(apk));
    expect(v.errors.map((e) => e.code)).toEqual(['V2_SIG_MAX_SIGNATURE_RECORDS_EXCEEDED']);
    expect(v.warnings.length).toBeLessThanOrEqual(64);
  });

  test('a signer with 64 signature records is still read', async () => {
    const records = Buffer.concat(Array.from({ length: 64 }, () => lp(u32(0x7777), lp())));
    const apk = withSigningBlock(signedV3, [
      { id: V2_BLOCK_ID, value: lp(lp(lp(), lp(records), lp())) },
    ]);
    const v = await verifyApk(bufferSource(apk));
    expect(v.errors.map((e) => e.code)).toEqual(['V2_SIG_NO_SUPPORTED_SIGNATURES']);
    expect(v.warnings).toHaveLength(64);
  });
});

describe('fuzz regressions: signer counts', () => {
  const signedV2 = readFileSync(
    path.resolve(__dirname, '../../../fixtures/apks/signed-v2-only.apk'),
  );
  const signedV3 = readFileSync(
    path.resolve(__dirname, '../../../fixtures/apks/signed-v3-only.apk'),
  );

  /** The scheme block `id` of `apk`, with its one signer repeated `n` times. */
  async function repeatedSigner(apk: Buffer, id: number, n: number): Promise<Buffer> {
    const source = bufferSource(apk);
    const lookup = await findSigningBlock(source, await findZipSections(source));
    if (!lookup.found) throw new Error('fixture has no signing block');
    const value = findSchemeBlock(lookup.block, id);
    if (value === null) throw new Error('fixture has no such scheme block');
    const signer = value.subarray(4); // the one length-prefixed signer
    return lp(Buffer.alloc(n * signer.length).fill(signer));
  }

  test('a v2 block of 5,000 copies of a valid signer: only 11 are read', async () => {
    const block = await repeatedSigner(signedV2, V2_BLOCK_ID, 5000);
    const r = verifyV2Scheme(block, {
      minSdk: 24,
      supportedSchemeIds: new Set([2, 3]),
      foundSchemeIds: new Set(),
    });
    expect(r.signers.length).toBeLessThanOrEqual(11);
    expect(r.errors.map((e) => e.code)).toContain('V2_SIG_MAX_SIGNATURES_EXCEEDED');
  });

  test('a v3 block of 5,000 copies of a valid signer: only 11 are read, and it is refused', async () => {
    const block = await repeatedSigner(signedV3, V3_BLOCK_ID, 5000);
    const r = verifyV3Scheme(block, { scheme: 'V3', minSdk: 28, maxSdk: 0x7fffffff });
    expect(r.signers.length).toBeLessThanOrEqual(11);
    expect(r.errors.map((e) => e.code)).toContain('V3_SIG_MAX_SIGNATURES_EXCEEDED');
    const v = await verifyApk(
      bufferSource(withSigningBlock(signedV3, [{ id: V3_BLOCK_ID, value: block }])),
    );
    expect(v.verified).toBe(false);
    expect(v.errors.map((e) => e.code)).toContain('V3_SIG_MAX_SIGNATURES_EXCEEDED');
  });
});

describe('fuzz regressions: records behind a valid signature', () => {
  // Anyone can sign with their own key: what follows the signature check is hostile too.
  const key = makeSigner(9);
  const ECDSA_SHA256 = 0x0201;

  /** A v2 scheme block of one signer, signed with `key`, whose signed data holds these lists. */
  function v2Block(lists: { digests?: Buffer[]; certs?: Buffer[]; attrs?: Buffer[] }): Buffer {
    const digests = lists.digests ?? [lp(u32(ECDSA_SHA256), lp(Buffer.alloc(32)))];
    const signedData = Buffer.concat([
      lp(...digests),
      lp(...(lists.certs ?? [lp(key.cert)])),
      lp(...(lists.attrs ?? [])),
    ]);
    const signature = sign('sha256', signedData, key.privateKey);
    const signer = lp(lp(signedData), lp(lp(u32(ECDSA_SHA256), lp(signature))), lp(key.spki));
    return lp(signer);
  }
  const many = (record: Buffer, n: number): Buffer[] => [
    Buffer.alloc(n * record.length).fill(record),
  ];
  const verify = (block: Buffer) =>
    verifyV2Scheme(block, {
      minSdk: 24,
      supportedSchemeIds: new Set([2, 3]),
      foundSchemeIds: new Set(),
    });

  test('the block is well-formed: one signer, verified, with the expected digest', () => {
    const r = verify(v2Block({}));
    expect(r.errors).toEqual([]);
    expect(r.signers.map((s) => s.errors)).toEqual([[]]);
  });

  test('1,000,000 unknown additional attributes: only 64 are read', () => {
    const r = verify(v2Block({ attrs: many(lp(u32(0x12345678)), 1_000_000) }));
    const signer = r.signers[0];
    expect(signer?.warnings.length).toBeLessThanOrEqual(64);
    expect(signer?.errors.map((e) => e.code)).toEqual([
      'V2_SIG_MAX_ADDITIONAL_ATTRIBUTES_EXCEEDED',
    ]);
  });

  test('1,000,000 digest records for one signature: refused as a mismatch without reading them all', () => {
    const r = verify(v2Block({ digests: many(lp(u32(ECDSA_SHA256), lp()), 1_000_000) }));
    const signer = r.signers[0];
    expect(signer?.contentDigests.length).toBeLessThanOrEqual(2);
    expect(signer?.errors.map((e) => e.code)).toEqual([
      'V2_SIG_SIG_ALG_MISMATCH_BETWEEN_SIGNATURES_AND_DIGESTS_RECORDS',
    ]);
  });

  test('10,000 certificates: only 64 are read', () => {
    const r = verify(v2Block({ certs: many(lp(key.cert), 10_000) }));
    const signer = r.signers[0];
    expect(signer?.certificates.length).toBeLessThanOrEqual(64);
    expect(signer?.errors.map((e) => e.code)).toEqual(['V2_SIG_MAX_CERTIFICATES_EXCEEDED']);
  });
});
