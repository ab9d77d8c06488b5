/**
 * The signing certificate chain of a JAR signature block (apksig getCertificateChain): leaf
 * first, then at each step the first unused certificate, in block order, whose subject is the
 * current issuer; it ends at a self-issued certificate or a missing issuer. Built by name index,
 * so a long chain costs a number of name comparisons linear in its length.
 */
import { generateKeyPairSync } from 'node:crypto';
import { certificateChain } from '../../../../../shared/apk/v1/verify-signature-block';
import {
  parseCertificate,
  type X509Certificate,
} from '../../../../../shared/apk/v1/x509-certificate';
import * as x500 from '../../../../../shared/apk/v1/x500-name';
import { ctx, oid, seq, set } from '../../../../helpers/apk/jar-signing-kit';

const tlv = (tag: number, body: Buffer): Buffer => {
  const len = body.length < 0x80 ? [body.length] : [0x82, body.length >> 8, body.length & 0xff];
  return Buffer.concat([Buffer.from([tag, ...len]), body]);
};
const spki = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
  type: 'spki',
  format: 'der',
});
const alg = seq(oid('1.2.840.10045.4.3.2'));
/** A Name of one CN, as UTF8String (0x0c) or PrintableString (0x13). */
const name = (cn: string, tag = 0x0c): Buffer =>
  seq(set(seq(oid('2.5.4.3'), tlv(tag, Buffer.from(cn)))));

function cert(subject: string, issuer: string, tag = 0x0c): X509Certificate {
  const validity = seq(
    tlv(0x17, Buffer.from('200101000000Z')),
    tlv(0x17, Buffer.from('400101000000Z')),
  );
  const tbs = seq(
    ctx(0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, Buffer.from([1])),
    alg,
    name(issuer, tag),
    validity,
    name(subject, tag),
    spki,
  );
  return parseCertificate(seq(tbs, alg, tlv(0x03, Buffer.from([0, 0]))));
}

const subjects = (chain: X509Certificate[]): string[] =>
  chain.map((c) => x500.nameKey(c.subject).replace(/^c:2\.5\.4\.3=/, ''));

describe('certificateChain', () => {
  test('follows issuers, taking the first unused match in block order, up to a self-issued one', () => {
    const leaf = cert('leaf', 'a');
    const a1 = cert('a', 'root');
    const a2 = cert('a', 'elsewhere');
    const root = cert('root', 'root');
    expect(subjects(certificateChain([a2, leaf, root, a1], leaf))).toEqual(['leaf', 'a']);
    expect(subjects(certificateChain([a1, a2, root, leaf], leaf))).toEqual(['leaf', 'a', 'root']);
  });

  test('stops at a missing issuer and never uses a certificate twice', () => {
    const leaf = cert('leaf', 'x');
    const x = cert('x', 'y');
    const y = cert('y', 'x');
    expect(subjects(certificateChain([leaf, x, y], leaf))).toEqual(['leaf', 'x', 'y']);
    expect(subjects(certificateChain([leaf], leaf))).toEqual(['leaf']);
  });

  test('matches names by canonical form', () => {
    const leaf = cert('leaf', 'Issuer  Name');
    const issuer = cert('issuer name', 'issuer name', 0x13); // PrintableString, other case/spaces
    expect(subjects(certificateChain([leaf, issuer], leaf))).toEqual(['leaf', 'issuer name']);
  });

  test('a chain of 2,000 certificates costs a linear number of name comparisons', () => {
    const n = 2000;
    const leaf = cert('leaf', 'n0');
    const chain = Array.from({ length: n }, (_, i) => cert(`n${i}`, `n${i + 1}`));
    // Each issuer placed last among the unused: a scan per step would cost n²/2 comparisons.
    const certificates = [leaf, ...chain.reverse()];
    const compare = jest.spyOn(x500, 'namesEqual');
    const keys = jest.spyOn(x500, 'nameKey');
    try {
      expect(certificateChain(certificates, leaf)).toHaveLength(n + 1);
      expect(compare.mock.calls.length + keys.mock.calls.length).toBeLessThan(10 * n);
    } finally {
      compare.mockRestore();
      keys.mockRestore();
    }
  });
});
