/**
 * The BER walker, PKCS #7 SignedData and X.509 readers, checked against node's own X.509
 * parser on real signature blocks from the apksig golden APKs, and on hostile input.
 */
import { X509Certificate as NodeX509, createPublicKey } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  BerError,
  childrenOf,
  readInteger,
  readNode,
  readOid,
} from '../../../../../shared/apk/v1/ber';
import { parseSignedData } from '../../../../../shared/apk/v1/pkcs7-signed-data';
import { parseCertificate } from '../../../../../shared/apk/v1/x509-certificate';
import { canonicalName, namesEqual } from '../../../../../shared/apk/v1/x500-name';
import { describeWithGolden, goldenPath } from '../../../../helpers/golden-corpus';
import { makeSigner, oid, seq } from '../../../../helpers/apk/jar-signing-kit';

function entryOf(apk: string, name: string): Buffer {
  return execFileSync('unzip', ['-p', goldenPath(apk), name], { maxBuffer: 1 << 24 });
}

const BLOCKS: Array<[apk: string, entry: string]> = [
  ['v1-only-with-rsa-2048.apk', 'META-INF/RSA-2048.RSA'],
  ['v1-only-with-dsa-sha256-2.16.840.1.101.3.4.3.2-3072.apk', 'META-INF/CERT.DSA'],
  ['v1-only-with-ecdsa-sha256-1.2.840.10045.4.3.2-p256.apk', 'META-INF/CERT.EC'],
  ['v1-only-with-ecdsa-sha512-1.2.840.10045.2.1-p521.apk', 'META-INF/CERT.EC'],
  ['v1-only-with-rsa-pkcs1-sha256-1.2.840.113549.1.1.1-16384.apk', 'META-INF/CERT.RSA'],
  ['v1-only-pkcs7-cert-bag-first-cert-not-used.apk', 'META-INF/CERT.RSA'],
];

describeWithGolden(
  __filename,
  'parseSignedData + parseCertificate on golden signature blocks',
  () => {
    it.each(BLOCKS)('%s %s agrees with node:crypto X509Certificate', (apk, entry) => {
      const signedData = parseSignedData(entryOf(apk, entry));
      expect(signedData.encapContentType).toBe('1.2.840.113549.1.7.1');
      expect(signedData.signerInfos.length).toBeGreaterThan(0);
      expect(signedData.certificates.length).toBeGreaterThan(0);
      for (const der of signedData.certificates) {
        const ours = parseCertificate(der);
        const node = new NodeX509(der);
        expect(ours.der.equals(node.raw)).toBe(true);
        expect(ours.serialNumber).toBe(BigInt(`0x${node.serialNumber}`));
        const ourKey = createPublicKey({
          key: ours.subjectPublicKeyInfo,
          format: 'der',
          type: 'spki',
        });
        expect(ourKey.equals(node.publicKey)).toBe(true);
        expect(ours.hasUnsupportedCriticalExtension).toBe(false);
      }
      const [signerInfo] = signedData.signerInfos;
      const signer = signedData.certificates
        .map(parseCertificate)
        .find((c) => c.serialNumber === signerInfo?.issuerAndSerialNumber?.serialNumber);
      expect(signer).toBeDefined();
      expect(
        namesEqual(signer?.issuer as Buffer, signerInfo?.issuerAndSerialNumber?.issuer as Buffer),
      ).toBe(true);
    });

    it('repairs a negative RSA modulus so node:crypto accepts the key', () => {
      const block = entryOf('v1v2v3-rsa-2048-negmod-in-cert.apk', 'META-INF/RSA-2048.RSA');
      const [der] = parseSignedData(block).certificates;
      const cert = parseCertificate(der as Buffer);
      const key = createPublicKey({ key: cert.subjectPublicKeyInfo, format: 'der', type: 'spki' });
      expect(key.asymmetricKeyType).toBe('rsa');
      expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
      // The stored certificate itself is untouched.
      expect(block.includes(cert.der)).toBe(true);
    });
  },
);

describe('BER walker', () => {
  it('reads definite and indefinite lengths with offsets', () => {
    // SEQUENCE (indefinite) { INTEGER -2, OID 1.2.840.113549 } EOC
    const buf = Buffer.from('3080' + '0201fe' + '06062a864886f70d' + '0000', 'hex');
    const root = readNode(buf, 0);
    expect(root.end).toBe(buf.length);
    const [int, oid] = childrenOf(buf, root);
    expect(readInteger(buf, int, 'int')).toBe(-2n);
    expect(readOid(buf, oid, 'oid')).toBe('1.2.840.113549');
  });

  it('decodes OIDs with arcs beyond 53 bits and a large second arc', () => {
    const uuid = Buffer.from('06146983f09da7ebcfdee0c7a1a7b2c0948cc8f9d776', 'hex');
    expect(readOid(uuid, readNode(uuid, 0), 'oid')).toBe(
      '2.25.329800735698586629295641978511506172918',
    );
    const big = Buffer.from('0603883703', 'hex');
    expect(readOid(big, readNode(big, 0), 'oid')).toBe('2.999.3');
  });

  it('accepts non-minimal (BER) lengths', () => {
    const buf = Buffer.from('30820003' + '020105', 'hex');
    const [int] = childrenOf(buf, readNode(buf, 0));
    expect(readInteger(buf, int, 'int')).toBe(5n);
  });

  it.each([
    ['truncated header', '30'],
    ['length past the end', '3005020101'],
    ['huge declared length', '3084ffffffff00'],
    ['length of length too big', '3089010203040506070809'],
    ['indefinite primitive', '0480'],
    ['unterminated indefinite', '30800201010201'],
    ['malformed OID', '0602ff81'],
  ])('refuses %s', (_what, hex) => {
    const buf = Buffer.from(hex, 'hex');
    expect(() => {
      const root = readNode(buf, 0);
      if (root.constructed) childrenOf(buf, root);
      else readOid(buf, root, 'oid');
    }).toThrow(BerError);
  });

  it('refuses nesting deeper than its bound instead of recursing without end', () => {
    const deep = Buffer.concat([Buffer.from('3080'.repeat(10_000), 'hex'), Buffer.alloc(20_000)]);
    expect(() => readNode(deep, 0)).toThrow(BerError);
  });
});

describeWithGolden(__filename, 'parseSignedData on hostile input', () => {
  const good = entryOf('v1-only-with-rsa-2048.apk', 'META-INF/RSA-2048.RSA');

  it('throws only BerError for every truncation', () => {
    for (let len = 0; len < good.length; len += 7) {
      expect(() => parseSignedData(good.subarray(0, len))).toThrow(BerError);
    }
  });

  it('refuses a ContentInfo that is not SignedData', () => {
    const data = Buffer.from('300d06092a864886f70d010701a000', 'hex');
    expect(() => parseSignedData(data)).toThrow(/contentType/);
  });
});

describe('X.500 name equality', () => {
  const name = (cn: string, tag = 0x0c): Buffer => {
    const value = Buffer.concat([Buffer.from([tag, cn.length]), Buffer.from(cn, 'latin1')]);
    const oid = Buffer.from('0603550403', 'hex');
    const seq = Buffer.concat([Buffer.from([0x30, oid.length + value.length]), oid, value]);
    const set = Buffer.concat([Buffer.from([0x31, seq.length]), seq]);
    return Buffer.concat([Buffer.from([0x30, set.length]), set]);
  };

  it('ignores case, string type and surrounding/duplicate whitespace like X500Principal', () => {
    expect(namesEqual(name('Android Debug'), name('  android   DEBUG ', 0x13))).toBe(true);
    expect(namesEqual(name('Android'), name('Androids'))).toBe(false);
    expect(canonicalName(name('A  B'))).toBe('2.5.4.3=a b');
  });

  it('treats malformed names as unequal to anything but identical bytes', () => {
    const bad = Buffer.from('3003020101', 'hex');
    expect(namesEqual(bad, Buffer.from(bad))).toBe(true);
    expect(namesEqual(bad, name('x'))).toBe(false);
  });
});

describe('parseCertificate structure checks (what the JDK refuses)', () => {
  const cert = makeSigner('ec').certificate;
  const [tbsNode, algNode, sigNode] = childrenOf(cert, readNode(cert, 0));
  const part = (n: typeof tbsNode): Buffer => cert.subarray(n?.start, n?.end);
  const tbsFields = childrenOf(cert, tbsNode as NonNullable<typeof tbsNode>).map(part);

  it('accepts the well-formed certificate', () => {
    expect(parseCertificate(cert).serialNumber).toBe(7n);
  });

  it('refuses differing inner and outer signature algorithms', () => {
    const other = seq(oid('1.2.840.10045.4.3.3'));
    expect(() => parseCertificate(seq(part(tbsNode), other, part(sigNode)))).toThrow(/mismatch/);
    expect(part(algNode).equals(other)).toBe(false);
  });

  it('refuses a malformed validity or version', () => {
    const badValidity = [...tbsFields];
    badValidity[4] = seq(Buffer.from('020101', 'hex'), Buffer.from('020101', 'hex'));
    expect(() => parseCertificate(seq(seq(...badValidity), part(algNode), part(sigNode)))).toThrow(
      BerError,
    );
    const badVersion = [...tbsFields];
    badVersion[0] = Buffer.from('a003020105', 'hex');
    expect(() => parseCertificate(seq(seq(...badVersion), part(algNode), part(sigNode)))).toThrow(
      /version/,
    );
  });
});
