/**
 * The signed notice's wire rules (device-client/protocol/signed-notice.ts): the signed bytes leave
 * out exactly `signature` and are UTF-8; the shape checks accept the server's notices and refuse
 * what the format does not allow. Expected bytes and verdicts are written by hand (docs/push.md).
 */
import {
  asGiveupEvent,
  asVersionEvent,
  signedBytes,
} from '../../../../device-client/protocol/signed-notice';

const version = {
  v: 2,
  type: 'version',
  account: 'a1',
  package: 'dev.apkrelay.demo',
  device: '*',
  apkId: 'apk1',
  md5: '0123456789abcdef0123456789abcdef',
  sha256: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  versionCode: 2,
  versionName: 'ü',
  size: 10,
  url: 'https://web.example/download',
  issuedAt: '2026-11-25T16:59:30.000Z',
  signature: 'sig',
};

test('the signed bytes: canonical JSON without the signature, in UTF-8', () => {
  expect(Buffer.from(signedBytes({ signature: 'x', b: 'ü', a: 1 })).toString('hex')).toBe(
    Buffer.from('{"a":1,"b":"ü"}', 'utf8').toString('hex'),
  );
  expect(Buffer.from(signedBytes({ b: 'ü', a: 1 })).toString('utf8')).toBe('{"a":1,"b":"ü"}');
});

test('a version notice of the right shape is accepted, as is', () => {
  expect(asVersionEvent(version)).toBe(version);
});

test.each([
  ['an upper-case md5', { md5: '0123456789ABCDEF0123456789ABCDEF' }],
  ['a short sha256', { sha256: '0123' }],
  ['issuedAt without milliseconds', { issuedAt: '2026-11-25T16:59:30Z' }],
  ['issuedAt not a date', { issuedAt: '2026-13-45T16:59:30.000Z' }],
  ['versionCode as text', { versionCode: '2' }],
  ['no signature', { signature: undefined }],
  ['the giveup type', { type: 'giveup' }],
])('a version notice with %s is refused', (_name, change) => {
  expect(asVersionEvent({ ...version, ...change })).toBeNull();
});

test('a giveup notice may name no md5; without issuedAt it is refused', () => {
  const giveup = {
    v: 2,
    type: 'giveup',
    account: 'a1',
    package: 'dev.apkrelay.demo',
    device: 'd1',
    apkId: 'apk1',
    md5: null,
    issuedAt: '2026-11-25T16:59:30.000Z',
    signature: 'sig',
  };
  expect(asGiveupEvent(giveup)).toBe(giveup);
  expect(asGiveupEvent({ ...giveup, issuedAt: undefined })).toBeNull();
  expect(asGiveupEvent({ ...giveup, type: 'version' })).toBeNull();
});
