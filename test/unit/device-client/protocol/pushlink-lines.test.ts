/**
 * The PushLink lines (device-client/protocol/pushlink-lines.ts) beyond the shared vectors: the
 * 64 KiB bound on a device line, optional subscribe members left out, and server lines that are
 * not JSON objects kept raw. Expected values from ../shared/spec/pushlink-device-protocol.md and
 * written by hand.
 */
import {
  MAX_LINE_BYTES,
  readDeviceLine,
  readServerLine,
  subscribeLine,
} from '../../../../device-client/protocol/pushlink-lines';

test('a device line of 64 KiB is read; one byte more is refused', () => {
  expect(MAX_LINE_BYTES).toBe(65536);
  expect(readDeviceLine(Buffer.alloc(65536, 0x20))).toEqual({ kind: 'heartbeat' });
  expect(readDeviceLine(Buffer.alloc(65537, 0x20))).toEqual({
    kind: 'invalid',
    text: 'Device register failed: Invalid subscribe line. Longer than 65536 bytes.',
  });
});

test('a subscribe line leaves out optional members not given, and orders members as the spec', () => {
  expect(
    subscribeLine({
      metadata: {},
      androidId: 'a',
      osVersion: '4.4.2',
      buildId: 'b',
      model: 'm',
      brand: 'br',
      localAdress: '/1.2.3.4:5',
      pid: '1',
      plVersion: '5.0.3',
      hash: '',
      package: 'p.q',
      apiKey: 'k',
      deviceId: 'd',
      currentStrategy: undefined,
    }),
  ).toBe(
    '{"deviceId":"d","apiKey":"k","package":"p.q","hash":"","plVersion":"5.0.3","pid":"1",' +
      '"localAdress":"/1.2.3.4:5","brand":"br","model":"m","buildId":"b","osVersion":"4.4.2",' +
      '"androidId":"a","metadata":{}}\n',
  );
});

test.each([
  ['not JSON', 'hello', { raw: 'hello' }],
  ['a JSON array', '[1]', { raw: '[1]' }],
  ['a JSON string', '"x"', { raw: '"x"' }],
  ['mt as a number (the spec allows it)', '{"mt":0,"msg":"m"}', { mt: 0, msg: 'm' }],
])('a server line that is %s', (_name, line, read) => {
  expect(readServerLine(line)).toEqual(read);
});
