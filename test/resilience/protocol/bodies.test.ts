/**
 * Oversized and malformed small bodies on raw sockets: JSON API bodies (too large, endless,
 * invalid JSON, invalid UTF-8), web administration forms (too large, endless, field floods,
 * invalid UTF-8) and the legacy exception form (too large, endless: the device library's text,
 * HTTP 200 as PushLink answers). Each ends in its refusal and a released connection. The two
 * exception routes are on every host devices reach (admin, web, push): their cases run on each.
 */
import type { Host } from '../../../api/route-table';
import { newAccount } from '../../helpers/accounts';
import { startStack, type TestStack } from '../../helpers/stack';
import { abuseCounter, probeEachTest } from './abuse-kit';
import { expectClosedByServer, expectReleased, openRaw, type RawResponse } from './raw-http';

const MAX_EXCEPTION_BYTES = 64 * 1024;
const counter = abuseCounter('bodies');
const DEVICE_HOSTS: readonly Host[] = ['admin', 'web', 'push'];

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ workers: false, maxExceptionBytes: MAX_EXCEPTION_BYTES });
});
afterAll(async () => {
  counter.record();
  await stack.close();
});
probeEachTest(() => stack);

function head(path: string, type: string, framing: string, extra = ''): Buffer {
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${type}\r\n${framing}\r\n${extra}\r\n`,
  );
}

async function send(path: string, type: string, body: Buffer, extra = '', host: Host = 'admin') {
  const connection = await openRaw(stack.urls[host], stack.ca);
  counter.add();
  await connection.write(
    Buffer.concat([head(path, type, `Content-Length: ${body.length}`, extra), body]),
  );
  const response = await connection.response(15_000);
  return { response, released: await expectReleased(connection, response.end) };
}

/** A chunked body that never ends; the reply must come, then the server must close. */
async function endless(path: string, type: string, prefix: string, host: Host = 'admin') {
  const connection = await openRaw(stack.urls[host], stack.ca);
  counter.add();
  await connection.write(head(path, type, 'Transfer-Encoding: chunked'));
  const frame = (b: Buffer) =>
    Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
  await connection.write(frame(Buffer.from(prefix)));
  const answered = connection.response(20_000);
  let done = false;
  void answered.then(
    () => (done = true),
    () => (done = true),
  );
  const chunk = frame(Buffer.alloc(16 * 1024, 0x61));
  let sent = 0;
  while (!done && sent < 64 * 1024 * 1024 && (await connection.write(chunk))) sent += chunk.length;
  const response = await answered;
  expect(sent).toBeLessThan(16 * 1024 * 1024);
  await expectClosedByServer(connection, 5_000);
  return response;
}

const code = (r: RawResponse) => (JSON.parse(r.text) as { error: { code: string } }).error.code;

describe('JSON API', () => {
  test('a body past the limit (declared): 413 PAYLOAD_TOO_LARGE, connection closed', async () => {
    const body = Buffer.from(JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(100_000) }));
    const { response, released } = await send('/api/v2/accounts', 'application/json', body);
    expect([response.status, code(response)]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(released).toBe('closed');
  });

  test.each([
    ['/api/v2/accounts', 'admin', '{"email":"a@b.c","password":"'],
    ...DEVICE_HOSTS.map((h) => ['/api/v2/exceptions', h, '{"package":"dev.x","stack":["']),
  ] as Array<[string, Host, string]>)(
    'an endless chunked body on %s @%s: 413 at once, then closed',
    async (path, host, prefix) => {
      const response = await endless(path, 'application/json', prefix, host);
      expect([response.status, code(response)]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    },
  );

  test.each([
    ['truncated', '{"email":"a@b.c",'],
    ['not JSON', 'email=a@b.c'],
    ['a bare string', '"hello"'],
    ['deeply nested', '['.repeat(50_000)],
  ])('invalid JSON (%s): 400 VALIDATION_FAILED, connection reusable', async (_name, text) => {
    const { response, released } = await send(
      '/api/v2/accounts',
      'application/json',
      Buffer.from(text),
    );
    expect([response.status, code(response)]).toEqual([400, 'VALIDATION_FAILED']);
    expect(released).toBe('reused');
  });

  test('invalid UTF-8 inside a JSON string: 400, and no account is created with lost bytes', async () => {
    const email = `utf8-${Date.now()}@example.com`;
    const body = Buffer.concat([
      Buffer.from(`{"email":"${email}","password":"password-`),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('-123"}'),
    ]);
    const { response } = await send('/api/v2/accounts', 'application/json', body);
    expect([response.status, code(response)]).toEqual([400, 'VALIDATION_FAILED']);
    expect(await stack.mongo.db.collection('accounts').countDocuments({ email })).toBe(0);
  });

  test('a charset other than UTF-8: 415', async () => {
    const { response } = await send(
      '/api/v2/accounts',
      'application/json; charset=latin1',
      Buffer.from('{"email":"a@b.c","password":"password-123"}'),
    );
    expect([response.status, code(response)]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });
});

describe('web administration forms', () => {
  const type = 'application/x-www-form-urlencoded';

  test('a login form past 16 KiB: 413, connection closed', async () => {
    const body = Buffer.from(`email=a%40b.c&password=${'x'.repeat(40_000)}&_csrf=x`);
    const { response, released } = await send('/ui/login', type, body);
    expect(response.status).toBe(413);
    expect(released).toBe('closed');
  });

  test('an endless login form: 413 at once, then closed', async () => {
    const response = await endless('/ui/login', type, 'email=a%40b.c&password=');
    expect(response.status).toBe(413);
  });

  test('a flood of 2,000 fields (within 16 KiB): 413, not a 500', async () => {
    const body = Buffer.from(Array.from({ length: 2_000 }, (_, i) => `f${i}=`).join('&'));
    expect(body.length).toBeLessThan(16 * 1024);
    const { response } = await send('/ui/login', type, body);
    expect(response.status).toBe(413);
  });

  test('invalid UTF-8 in a field (raw or percent-encoded): 400', async () => {
    for (const body of [
      Buffer.concat([Buffer.from('email=a'), Buffer.from([0xff]), Buffer.from('%40b.c')]),
      Buffer.from('email=a%FF%FE%40b.c&password=x&_csrf=x'),
    ]) {
      const { response } = await send('/ui/login', type, body);
      expect(response.status).toBe(400);
    }
  });
});

describe('legacy exception form', () => {
  const type = 'application/x-www-form-urlencoded; charset=UTF-8';
  const tooLarge = `Exception sent but rejected: Invalid report. The report is larger than ${MAX_EXCEPTION_BYTES} bytes.`;

  test.each(DEVICE_HOSTS)(
    'past MAX_EXCEPTION_BYTES (declared) @%s: the spec-style text, connection closed',
    async (host) => {
      const { apiKey } = await newAccount(stack);
      const body = Buffer.from(`api_key=${apiKey}&st%5B%5D=${'x'.repeat(MAX_EXCEPTION_BYTES)}`);
      const { response, released } = await send('/exception', type, body, '', host);
      expect([response.status, response.text]).toEqual([200, tooLarge]);
      expect(released).toBe('closed');
    },
  );

  test.each([
    ['a raw byte', Buffer.from([0x78, 0xff, 0x78])],
    ['a percent-escape', Buffer.from('x%C3%28x')],
  ])(
    'invalid UTF-8 (%s) in a stack line: "Invalid report", not stored with lost bytes',
    async (_name, bad) => {
      const body = Buffer.concat([
        Buffer.from(
          `package=dev.apkrelay.sample&api_key=ak_${'Z'.repeat(32)}&hash=${'0'.repeat(32)}&deviceId=d1&st%5B%5D=`,
        ),
        bad,
      ]);
      const { response, released } = await send('/exception', type, body);
      expect([response.status, response.text]).toEqual([
        200,
        'Exception sent but rejected: Invalid report. The report is not valid UTF-8.',
      ]);
      expect(released).toBe('reused');
    },
  );

  test.each(DEVICE_HOSTS)(
    'an endless chunked report @%s: the same text at once, then closed',
    async (host) => {
      const response = await endless('/exception', type, 'package=dev.x&st%5B%5D=', host);
      expect([response.status, response.text]).toEqual([200, tooLarge]);
    },
  );
});
