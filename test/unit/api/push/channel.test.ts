/**
 * The server's signed notices (format 2): every `version` and `giveup` names the account, the
 * package and the device (or `*`, every installation of that app in that account) and when it was
 * signed, and the client's check agrees with what the server signs.
 */
import { ObjectId } from 'mongodb';
import { giveupEvent, SignedOnce, versionEvent } from '../../../../api/push/channel';
import type { ApkDoc } from '../../../../shared/catalog/types';
import { derivePushKeys, publicKeyInfo } from '../../../../shared/devices/push-signing';
import { checkNotice } from '../../../../device-client/core/signed-events';
import { nodeCrypto } from '../../../../device-client/node/adapters';

const keys = derivePushKeys(Buffer.alloc(32, 7));
const { publicKey } = publicKeyInfo(keys);
const A = '6745a1b2c3d4e5f6000000aa';
const B = '6745a1b2c3d4e5f6000000bb';
const PKG = 'dev.apkrelay.sample';
const NOW = Date.parse('2026-11-25T17:00:00.000Z');
const ctx = { keys, webUrl: 'https://web.example', now: new Date(NOW) };
const apk = {
  _id: new ObjectId('6745a1b2c3d4e5f601234567'),
  package: PKG,
  md5: '0123456789abcdef0123456789abcdef',
  sha256: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  versionCode: 2,
  versionName: '2.0',
  size: 1000,
} as ApkDoc;

const verdict = (e: Record<string, unknown>, event: string, account: string, device: string) => {
  const r = checkNotice(
    nodeCrypto,
    publicKey,
    event,
    e,
    { account, package: PKG, device },
    null,
    NOW,
  );
  return r.ok ? 'accept' : r.reason;
};

test('a version notice names format 2, account, package, device and issuedAt', () => {
  const e = versionEvent(ctx, { account: A, device: 'device-x' }, apk);
  expect(e).toMatchObject({
    v: 2,
    type: 'version',
    account: A,
    package: PKG,
    device: 'device-x',
    apkId: '6745a1b2c3d4e5f601234567',
    issuedAt: '2026-11-25T17:00:00.000Z',
  });
  expect(verdict(e, 'version', A, 'device-x')).toBe('accept');
  expect(verdict(e, 'version', B, 'device-x')).toBe('event addressed to another account');
  expect(verdict(e, 'version', A, 'device-y')).toBe('event addressed to another device');
});

test('a give-up notice is bound alike; `*` reaches every device of that account and app only', () => {
  const e = giveupEvent(ctx, { account: A, device: '*' }, PKG, apk, apk._id.toHexString());
  expect(e).toMatchObject({ v: 2, type: 'giveup', account: A, package: PKG, device: '*' });
  expect(verdict(e, 'giveup', A, 'device-x')).toBe('accept');
  expect(verdict(e, 'giveup', A, 'device-y')).toBe('accept');
  expect(verdict(e, 'giveup', B, 'device-x')).toBe('event addressed to another account');
});

test('SignedOnce signs one event per audience: a notice to one device names it', () => {
  const one = new SignedOnce(ctx, '1-0', { account: A, device: 'device-x' });
  const text = one.version(apk).read();
  const data = JSON.parse(/^data: ?(.*)$/m.exec(text)![1]!) as Record<string, unknown>;
  expect(data).toMatchObject({ account: A, device: 'device-x' });
});
