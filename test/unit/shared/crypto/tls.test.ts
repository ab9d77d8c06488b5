import { X509Certificate, createPrivateKey } from 'node:crypto';
import { seal, unseal } from '../../../../shared/crypto/seal';
import { selfSignedCertificate } from '../../../../shared/crypto/tls';

test('self-signed certificate covers localhost, loopback and the public host names', () => {
  const now = new Date('2026-11-21T00:00:00Z');
  const { cert, key } = selfSignedCertificate(['relay.example.com'], now);
  const x509 = new X509Certificate(cert);
  expect(x509.subjectAltName).toContain('DNS:localhost');
  expect(x509.subjectAltName).toContain('DNS:relay.example.com');
  expect(x509.subjectAltName).toContain('IP Address:127.0.0.1');
  expect(new Date(x509.validTo).getTime()).toBeGreaterThan(now.getTime() + 4 * 365 * 86400_000);
  expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
});

test('seal/unseal round-trips and detects tampering and a wrong context', () => {
  const key = Buffer.alloc(32, 9);
  const sealed = seal(key, Buffer.from('secret'), 'ctx');
  expect(unseal(key, sealed, 'ctx').toString()).toBe('secret');
  expect(() => unseal(key, sealed, 'other')).toThrow();
  const parts = sealed.split('.');
  const ct = Buffer.from(parts[2]!, 'base64url');
  ct[0]! ^= 1;
  parts[2] = ct.toString('base64url');
  expect(() => unseal(key, parts.join('.'), 'ctx')).toThrow();
  expect(() => unseal(key, 'v0.a.b.c', 'ctx')).toThrow(/malformed/);
});
