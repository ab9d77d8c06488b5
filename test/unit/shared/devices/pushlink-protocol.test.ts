/**
 * The PushLink push protocol's pure core, with literal lines as SDK 5.6.0 and 5.0.3 send them
 * (key sets from ../shared/spec/pushlink-device-protocol.md) and the server lines it writes.
 */
import {
  apkLine,
  MAX_LINE_BYTES,
  parseDeviceLine,
  textLine,
} from '../../../../shared/devices/pushlink-protocol';

const bytes = (s: string) => Buffer.from(s, 'utf8');
const M1 = '0123456789abcdef0123456789abcdef';
const M2 = 'fedcba9876543210fedcba9876543210';

const SDK_560 =
  '{"deviceId":"dev-1","apiKey":"ak_123","package":"com.example.kiosk","hash":"0123456789ABCDEF0123456789abcdef",' +
  '"plVersion":"5.6.0","pid":"4242","localAdress":"/10.0.2.15:41234","brand":"samsung","model":"SM-T295",' +
  '"buildId":"PPR1.180610.011","osVersion":"9","androidId":"9774d56d682e549c","metadata":{"store":"42","lane":"3"},' +
  '"heartbeatIntervalInSeconds":30,"lastDownloadHash":"fedcba9876543210fedcba9876543210","currentStrategy":"CUSTOM"}';
const SDK_503 =
  '{"apiKey":"ak_123","package":"com.example.kiosk","deviceId":"dev-2","hash":"","plVersion":"5.0.3","pid":"77",' +
  '"localAdress":"/192.168.1.9:50000","brand":"LGE","model":"Nexus 5","buildId":"KOT49H","osVersion":"4.4.2",' +
  '"androidId":"abc","metadata":{}}';

function invalidText(line: string | Buffer): string {
  const r = parseDeviceLine(typeof line === 'string' ? bytes(line) : line);
  if (r.kind !== 'invalid') throw new Error(`expected a refusal, got ${r.kind}`);
  return r.text;
}

describe('subscribe lines', () => {
  test("SDK 5.6.0's line maps to the SSE side's registration", () => {
    expect(parseDeviceLine(bytes(SDK_560))).toEqual({
      kind: 'subscribe',
      subscribe: {
        apiKey: 'ak_123',
        heartbeatSeconds: 30,
        registration: {
          package: 'com.example.kiosk',
          deviceId: 'dev-1',
          installedMd5: M1,
          lastDownloadedMd5: M2,
          strategy: 'CUSTOM',
          device: { brand: 'samsung', model: 'SM-T295', osVersion: '9', sdkInt: null },
          metadata: [
            { key: 'store', value: '42' },
            { key: 'lane', value: '3' },
          ],
          location: null,
          channel: 'pushlink',
          plVersion: '5.6.0',
        },
      },
    });
  });

  test("SDK 5.0.3's shorter line (no heartbeat interval, last download, strategy) is accepted", () => {
    expect(parseDeviceLine(bytes(SDK_503))).toEqual({
      kind: 'subscribe',
      subscribe: {
        apiKey: 'ak_123',
        heartbeatSeconds: null,
        registration: {
          package: 'com.example.kiosk',
          deviceId: 'dev-2',
          installedMd5: null,
          lastDownloadedMd5: null,
          strategy: null,
          device: { brand: 'LGE', model: 'Nexus 5', osVersion: '4.4.2', sdkInt: null },
          metadata: [],
          location: null,
          channel: 'pushlink',
          plVersion: '5.0.3',
        },
      },
    });
  });

  test('NO_STRATEGY is no strategy; a trailing \\r is tolerated', () => {
    const r = parseDeviceLine(bytes(`${SDK_560.replace('"CUSTOM"', '"NO_STRATEGY"')}\r`));
    expect(r.kind === 'subscribe' && r.subscribe.registration.strategy).toBeNull();
  });

  test.each([
    ['missing apiKey', SDK_503.replace('"apiKey":"ak_123",', ''), 'apiKey is required.'],
    ['empty deviceId', SDK_503.replace('"dev-2"', '""'), 'deviceId is required.'],
    [
      'package not a name',
      SDK_503.replace('com.example.kiosk', 'kiosk'),
      'package must be an Android package name.',
    ],
    [
      'hash not an MD5',
      SDK_503.replace('"hash":""', '"hash":"xyz"'),
      'hash must be an MD5 in hex, or empty.',
    ],
    ['hash a number', SDK_503.replace('"hash":""', '"hash":12'), 'hash must be a string.'],
    [
      'metadata an array',
      SDK_503.replace('"metadata":{}', '"metadata":["a"]'),
      'metadata must be an object.',
    ],
    [
      'metadata value a number',
      SDK_503.replace('"metadata":{}', '"metadata":{"a":1}'),
      'metadata values must be strings (at most 2000 characters).',
    ],
    [
      'heartbeat interval a string',
      SDK_560.replace('"heartbeatIntervalInSeconds":30', '"heartbeatIntervalInSeconds":"30"'),
      'heartbeatIntervalInSeconds must be a whole number of seconds (1 to 86400).',
    ],
    [
      'heartbeat interval 0',
      SDK_560.replace('"heartbeatIntervalInSeconds":30', '"heartbeatIntervalInSeconds":0'),
      'heartbeatIntervalInSeconds must be a whole number of seconds (1 to 86400).',
    ],
    [
      'unknown strategy',
      SDK_560.replace('"CUSTOM"', '"LOUD"'),
      'currentStrategy must be one of STATUS_BAR, FRIENDLY_POPUP, ANNOYING_POPUP, CUSTOM, NO_STRATEGY.',
    ],
    [
      'brand too long',
      SDK_503.replace('"LGE"', JSON.stringify('b'.repeat(101))),
      'brand must be at most 100 characters.',
    ],
    ['pid an object', SDK_503.replace('"pid":"77"', '"pid":{}'), 'pid must be a string.'],
  ])('%s: refused with a text naming the field', (_name, line, why) => {
    expect(invalidText(line)).toBe(`Device register failed: Invalid subscribe line. ${why}`);
  });

  test('more than 100 metadata pairs are refused', () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v']));
    const line = SDK_503.replace('"metadata":{}', `"metadata":${JSON.stringify(many)}`);
    expect(invalidText(line)).toBe(
      'Device register failed: Invalid subscribe line. at most 100 metadata entries.',
    );
  });
});

describe('other device lines', () => {
  test('an empty line (or blanks) is a heartbeat', () => {
    expect(parseDeviceLine(bytes(''))).toEqual({ kind: 'heartbeat' });
    expect(parseDeviceLine(bytes('\r'))).toEqual({ kind: 'heartbeat' });
  });
  test('not JSON, not an object, not UTF-8, too long: refused, each with its reason', () => {
    const prefix = 'Device register failed: Invalid subscribe line.';
    expect(invalidText('hello')).toBe(`${prefix} Not JSON.`);
    expect(invalidText('[1,2]')).toBe(`${prefix} Not a JSON object.`);
    expect(invalidText('null')).toBe(`${prefix} Not a JSON object.`);
    expect(invalidText(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toBe(`${prefix} Not UTF-8.`);
    expect(invalidText(Buffer.alloc(MAX_LINE_BYTES + 1, 0x20))).toBe(
      `${prefix} Longer than 65536 bytes.`,
    );
  });
});

describe('server lines', () => {
  test('exactly the two shapes, one JSON object per line', () => {
    expect(apkLine(M2)).toBe(`{"mt":"0","msg":"${M2}"}\n`);
    expect(
      textLine('Device register failed: Invalid Package. Probably you never uploaded this app.'),
    ).toBe(
      '{"mt":"1","msg":"Device register failed: Invalid Package. Probably you never uploaded this app."}\n',
    );
  });
  test('a text with quotes, newlines or a lone surrogate stays one line of valid JSON', () => {
    const line = textLine('a "b"\nc \ud800');
    expect(line).toBe('{"mt":"1","msg":"a \\"b\\"\\nc \\ud800"}\n');
    expect(line.indexOf('\n')).toBe(line.length - 1);
  });
});
