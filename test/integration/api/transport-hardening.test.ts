/**
 * Issue 24, finding 8 (a, b, c) against the real listeners: TLS 1.2 offers only forward-secret
 * (ECDHE) suites, a client offering only `AES128-SHA` is refused; the admin and web hosts send
 * `Strict-Transport-Security` (the push host, spoken to by devices only, does not); the admin
 * listener binds ADMIN_HOST and does not answer on another loopback address.
 */
import { connect, type TLSSocket } from 'node:tls';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

jest.setTimeout(60_000);

const ADMIN_HOST = '127.0.0.2';
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ workers: false, adminHost: ADMIN_HOST });
});
afterAll(() => stack.close());

const portOf = (url: string) => Number(new URL(url).port);

/** A TLS handshake; resolves with the negotiated suite, or the error code that ended it. */
function handshake(
  host: string,
  port: number,
  options: { ciphers?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' } = {},
): Promise<{ cipher?: string; error?: string }> {
  return new Promise((resolve) => {
    const socket: TLSSocket = connect({
      host,
      port,
      servername: 'localhost',
      ca: stack.ca,
      ...options,
    });
    socket.once('secureConnect', () => {
      resolve({ cipher: socket.getCipher().standardName });
      socket.destroy();
    });
    socket.once('error', (err: NodeJS.ErrnoException) =>
      resolve({ error: err.code ?? err.message }),
    );
  });
}

test('TLS 1.2: AES128-SHA alone is refused, an ECDHE suite is accepted', async () => {
  for (const url of [stack.urls.web, stack.urls.push]) {
    const port = portOf(url);
    const weak = await handshake('127.0.0.1', port, {
      ciphers: 'AES128-SHA',
      maxVersion: 'TLSv1.2',
    });
    expect(weak.cipher).toBeUndefined();
    expect(weak.error).toMatch(/HANDSHAKE_FAILURE|SSLV3_ALERT|ECONNRESET|NO_SHARED_CIPHER/);
    const fs = await handshake('127.0.0.1', port, {
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256',
      maxVersion: 'TLSv1.2',
    });
    expect(fs).toEqual({ cipher: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256' });
  }
  const weakAdmin = await handshake(ADMIN_HOST, portOf(stack.urls.admin), {
    ciphers: 'AES128-SHA',
    maxVersion: 'TLSv1.2',
  });
  expect(weakAdmin.cipher).toBeUndefined();
  // TLS 1.3 suites are all forward-secret and stay on.
  expect((await handshake('127.0.0.1', portOf(stack.urls.web))).cipher).toMatch(
    /^TLS_AES_|^TLS_CHACHA/,
  );
});

test('the admin listener answers on ADMIN_HOST only', async () => {
  const port = portOf(stack.urls.admin);
  expect((await handshake(ADMIN_HOST, port)).cipher).toBeDefined();
  expect(await handshake('127.0.0.1', port)).toEqual({ error: 'ECONNREFUSED' });
  // The other hosts keep HOST.
  expect((await handshake('127.0.0.1', portOf(stack.urls.web))).cipher).toBeDefined();
});

test('Strict-Transport-Security on the admin and web hosts, not on the push host', async () => {
  const web = await request(`${stack.urls.web}/ui/login`, { ca: stack.ca });
  expect(web.headers['strict-transport-security']).toBe('max-age=31536000');
  const webMissing = await request(`${stack.urls.web}/no-such-page`, { ca: stack.ca });
  expect(webMissing.headers['strict-transport-security']).toBe('max-age=31536000');
  const push = await request(`${stack.urls.push}/no-such-page`, { ca: stack.ca });
  expect(push.headers['strict-transport-security']).toBeUndefined();
  // The admin host, reached on its own address with the certificate's name.
  const admin = await new Promise<string | undefined>((resolve, reject) => {
    const socket = connect({
      host: ADMIN_HOST,
      port: portOf(stack.urls.admin),
      servername: 'localhost',
      ca: stack.ca,
    });
    let text = '';
    socket.once('secureConnect', () =>
      socket.end('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'),
    );
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.once('end', () => resolve(/^strict-transport-security: (.*)\r$/im.exec(text)?.[1]));
    socket.once('error', reject);
  });
  expect(admin).toBe('max-age=31536000');
});
