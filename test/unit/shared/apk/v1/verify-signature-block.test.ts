/**
 * verifyV1's checks of the PKCS #7 signature block on APKs signed by the test kit: key types,
 * signed attributes, certificate selection and usability.
 */
import { verifyV1, type V1Result } from '../../../../../shared/apk/v1';
import {
  OIDS,
  keyUsageExtension,
  makeSigner,
  memoryZip,
  octets,
  oid,
  seq,
  set,
  signJar,
  unknownCriticalExtension,
  type BlockOptions,
  type Files,
  type TestSigner,
} from '../../../../helpers/apk/jar-signing-kit';

const ANY = 0x7fffffff;
const FILES: Files = [
  ['AndroidManifest.xml', Buffer.from('<manifest/>')],
  ['classes.dex', Buffer.alloc(300, 1)],
];

let rsa: TestSigner;
let ec: TestSigner;
let dsa: TestSigner;
beforeAll(() => {
  rsa = makeSigner('rsa');
  ec = makeSigner('ec');
  dsa = makeSigner('dsa');
});

async function verifyBlock(
  signer: TestSigner,
  block: BlockOptions = {},
  minSdk = 24,
  maxSdk = ANY,
): Promise<V1Result> {
  const files = signJar(FILES, [signer], { block });
  return verifyV1(memoryZip(files), { minSdk, maxSdk, foundSchemeIds: new Set() });
}
const codes = (r: V1Result): string[] => r.errors.map((e) => e.code);

describe('verifyV1 signature blocks', () => {
  it.each(['rsa', 'ec', 'dsa'] as const)('verifies a %s signature', async (kind) => {
    const signer = { rsa, ec, dsa }[kind];
    const r = await verifyBlock(signer);
    expect(codes(r)).toEqual([]);
    expect(r.signers[0]?.certificates).toEqual([signer.certificate]);
  });

  it('ignores bytes after the ContentInfo, as apksig does', async () => {
    const files = signJar(FILES, [ec]).map(([n, d]): [string, Buffer] => [
      n,
      n.endsWith('.EC') ? Buffer.concat([d, Buffer.from('trailing junk')]) : d,
    ]);
    const r = await verifyV1(memoryZip(files), {
      minSdk: 24,
      maxSdk: ANY,
      foundSchemeIds: new Set(),
    });
    expect(r.errors).toEqual([]);
  });

  it('refuses a signature algorithm that does not match the key', async () => {
    expect(codes(await verifyBlock(rsa, { sigOid: OIDS.ecPublicKey }))).toEqual([
      'JAR_SIG_VERIFY_EXCEPTION',
    ]);
  });

  it('does not verify a signature made with another key', async () => {
    const other = makeSigner('ec');
    const r = await verifyBlock(ec, { certificates: [other.certificate] });
    // Same issuer name and serial, different key: the signature does not verify.
    expect(codes(r)).toEqual(['JAR_SIG_DID_NOT_VERIFY']);
  });

  describe('signed attributes', () => {
    it('verifies over the attributes from API 19 and refuses them before', async () => {
      expect(codes(await verifyBlock(rsa, { signedAttrs: 'standard' }, 19))).toEqual([]);
      expect(codes(await verifyBlock(rsa, { signedAttrs: 'standard' }, 18))).toEqual([
        'JAR_SIG_VERIFY_EXCEPTION',
      ]);
    });

    const digestAttr = (content: string): Buffer =>
      seq(oid(OIDS.messageDigest), set(octets(Buffer.from(content))));
    const typeAttr = (type: string): Buffer => seq(oid(OIDS.contentType), set(oid(type)));

    it('requires content-type from Android N, matching eContentType', async () => {
      const missing = { signedAttrs: [digestAttr('x')] };
      expect(codes(await verifyBlock(rsa, missing))).toEqual(['JAR_SIG_VERIFY_EXCEPTION']);
      const wrongType = { signedAttrs: [typeAttr('1.2.3'), digestAttr('x')] };
      expect(codes(await verifyBlock(rsa, wrongType))).toEqual(['JAR_SIG_DID_NOT_VERIFY']);
    });

    it('requires a message digest equal to the .SF digest', async () => {
      expect(codes(await verifyBlock(rsa, { signedAttrs: [typeAttr(OIDS.data)] }))).toEqual([
        'JAR_SIG_VERIFY_EXCEPTION',
      ]);
      const wrong = { signedAttrs: [typeAttr(OIDS.data), digestAttr('not the digest')] };
      expect(codes(await verifyBlock(rsa, wrong))).toEqual(['JAR_SIG_DID_NOT_VERIFY']);
    });

    it('refuses duplicate or multi-valued attributes as a parse error', async () => {
      const twoValues = seq(oid(OIDS.contentType), set(oid(OIDS.data), oid(OIDS.data)));
      expect(codes(await verifyBlock(rsa, { signedAttrs: [twoValues, digestAttr('x')] }))).toEqual([
        'JAR_SIG_PARSE_EXCEPTION',
      ]);
      const dup = [typeAttr(OIDS.data), typeAttr(OIDS.data), digestAttr('x')];
      expect(codes(await verifyBlock(rsa, { signedAttrs: dup }))).toEqual([
        'JAR_SIG_PARSE_EXCEPTION',
      ]);
    });

    it('refuses attributes that are not ASN.1 Attributes', async () => {
      const garbage = Buffer.from([0x04, 0x01, 0x00]);
      expect(codes(await verifyBlock(rsa, { signedAttrs: [garbage] }))).toEqual([
        'JAR_SIG_VERIFY_EXCEPTION',
      ]);
    });
  });

  describe('signing certificate', () => {
    it('must be in the certificate bag, identified by issuer and serial', async () => {
      expect(codes(await verifyBlock(rsa, { certificates: [ec.certificate] }))).toEqual([
        'JAR_SIG_VERIFY_EXCEPTION',
      ]);
      expect(codes(await verifyBlock(rsa, { bySubjectKeyId: true }))).toEqual([
        'JAR_SIG_VERIFY_EXCEPTION',
      ]);
      expect(codes(await verifyBlock(rsa, { certificates: [] }))).toEqual([
        'JAR_SIG_VERIFY_EXCEPTION',
      ]);
    });

    it('is found after other certificates and reported first in the chain', async () => {
      const r = await verifyBlock(rsa, { certificates: [ec.certificate, rsa.certificate] });
      expect(r.verified).toBe(true);
      expect(r.signers[0]?.certificates).toEqual([rsa.certificate]);
    });

    it('must allow digital signatures when it has a keyUsage extension', async () => {
      const certSignOnly = makeSigner('ec', { extensions: [keyUsageExtension(0x04)] });
      expect(codes(await verifyBlock(certSignOnly))).toEqual(['JAR_SIG_VERIFY_EXCEPTION']);
      const digitalSignature = makeSigner('ec', { extensions: [keyUsageExtension(0x80)] });
      expect(codes(await verifyBlock(digitalSignature))).toEqual([]);
      const nonRepudiation = makeSigner('ec', { extensions: [keyUsageExtension(0x40, false)] });
      expect(codes(await verifyBlock(nonRepudiation))).toEqual([]);
    });

    it('must not carry unknown critical extensions', async () => {
      const critical = makeSigner('ec', { extensions: [unknownCriticalExtension()] });
      expect(codes(await verifyBlock(critical))).toEqual(['JAR_SIG_VERIFY_EXCEPTION']);
    });

    it('must parse, or the whole block is refused', async () => {
      const broken = Buffer.from(ec.certificate);
      broken[1] = 0x10; // wrong outer length
      expect(codes(await verifyBlock(ec, { certificates: [broken] }))).toEqual([
        'JAR_SIG_PARSE_EXCEPTION',
      ]);
    });
  });
});
