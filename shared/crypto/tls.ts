/**
 * TLS material for the three listeners: `TLS_CERT`/`TLS_KEY` when given, otherwise a self-signed
 * certificate generated once into `DATA_DIR/tls/` (node-forge builds the X.509; node:crypto makes
 * the key, natively and fast) and reused on later starts.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import forge from 'node-forge';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

export async function resolveTlsMaterial(options: {
  certFile: string | undefined;
  keyFile: string | undefined;
  dataDir: string;
  hostnames: readonly string[];
}): Promise<TlsMaterial> {
  if (options.certFile && options.keyFile) {
    return {
      cert: await readFile(options.certFile, 'utf8'),
      key: await readFile(options.keyFile, 'utf8'),
    };
  }
  const dir = path.join(options.dataDir, 'tls');
  const certFile = path.join(dir, 'self-signed.crt');
  const keyFile = path.join(dir, 'self-signed.key');
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const material = selfSignedCertificate(options.hostnames, new Date());
  await mkdir(dir, { recursive: true });
  // Write to temporary names then rename, so a concurrent starter never reads half a file.
  const suffix = `.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(keyFile + suffix, material.key, { mode: 0o600 });
  await writeFile(certFile + suffix, material.cert);
  await rename(keyFile + suffix, keyFile);
  await rename(certFile + suffix, certFile);
  return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
}

/** A self-signed certificate valid for `hostnames` (plus localhost and loopback) for 5 years. */
export function selfSignedCertificate(hostnames: readonly string[], now: Date): TlsMaterial {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(
    publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  );
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 5 * 365 * 24 * 3600 * 1000);
  const attrs = [{ name: 'commonName', value: 'apkrelay self-signed' }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  const names = [...new Set(['localhost', '127.0.0.1', '::1', ...hostnames])];
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keyPem };
}
