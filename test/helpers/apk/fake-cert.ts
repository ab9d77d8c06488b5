/**
 * Test keys and structurally valid X.509 certificates wrapping their public keys. The verifier
 * only reads the SubjectPublicKeyInfo out of a certificate, so the certificate's own signature
 * is filler.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';

function der(tag: number, ...parts: Buffer[]): Buffer {
  const value = Buffer.concat(parts);
  const len =
    value.length < 0x80
      ? Buffer.from([value.length])
      : value.length < 0x100
        ? Buffer.from([0x81, value.length])
        : Buffer.from([0x82, value.length >> 8, value.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, value]);
}

export interface TestSigner {
  privateKey: KeyObject;
  spki: Buffer;
  cert: Buffer;
}

export function makeSigner(serial: number, type: 'rsa' | 'ec' = 'ec'): TestSigner {
  const { privateKey, publicKey } =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 1024 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const alg = der(0x30, der(0x06, Buffer.from('2a8648ce3d040302', 'hex')));
  const name = der(
    0x30,
    der(
      0x31,
      der(0x30, der(0x06, Buffer.from('550403', 'hex')), der(0x0c, Buffer.from(`t${serial}`))),
    ),
  );
  const validity = der(
    0x30,
    der(0x17, Buffer.from('250101000000Z')),
    der(0x17, Buffer.from('350101000000Z')),
  );
  const tbs = der(
    0x30,
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.from([serial])),
    alg,
    name,
    validity,
    name,
    spki,
  );
  const cert = der(0x30, tbs, alg, der(0x03, Buffer.from([0, 1, 2, 3])));
  return { privateKey, spki, cert };
}
