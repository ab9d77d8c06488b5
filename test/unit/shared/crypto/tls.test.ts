import { X509Certificate, createPrivateKey } from 'node:crypto';
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
