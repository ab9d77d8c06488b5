import { abandonedDownload, decide, gaveUpMd5Mark } from '../../../../shared/devices/decide';
import { canonicalJson } from '../../../../device-client/protocol/canonical-json';
import {
  derivePushKeys,
  publicKeyInfo,
  signEvent,
  verifyEvent,
} from '../../../../shared/devices/push-signing';

const v1 = { id: 'apk1', md5: 'md5-1' };
const v2 = { id: 'apk2', md5: 'md5-2' };
const fresh = { installedMd5: 'md5-1', offeredApkId: null, gaveUp: [] };

describe('decide', () => {
  test('an installation running the current APK is told nothing', () => {
    expect(decide(v1, fresh, null)).toEqual({ giveup: null, version: null, offeredApkId: null });
  });
  test('a new current APK is offered', () => {
    expect(decide(v2, fresh, null)).toEqual({ giveup: null, version: v2, offeredApkId: 'apk2' });
  });
  test('no current APK: nothing to offer', () => {
    expect(decide(null, { ...fresh, installedMd5: null }, null)).toEqual({
      giveup: null,
      version: null,
      offeredApkId: null,
    });
  });
  test('moving back before the newer one was applied gives it up, once', () => {
    const offered = { installedMd5: 'md5-1', offeredApkId: 'apk2', gaveUp: [] };
    expect(decide(v1, offered, 'md5-2')).toEqual({
      giveup: 'apk2',
      version: null,
      offeredApkId: null,
    });
    expect(decide(v1, { ...offered, gaveUp: ['apk2'] }, 'md5-2').giveup).toBeNull();
  });
  test('moving back after the newer one was applied offers the older one (a downgrade), no give-up', () => {
    const applied = { installedMd5: 'md5-2', offeredApkId: 'apk2', gaveUp: [] };
    expect(decide(v1, applied, 'md5-2')).toEqual({
      giveup: null,
      version: v1,
      offeredApkId: 'apk1',
    });
  });
  test('moving to a third APK gives the offered one up and offers the third', () => {
    const v3 = { id: 'apk3', md5: 'md5-3' };
    expect(
      decide(v3, { installedMd5: 'md5-1', offeredApkId: 'apk2', gaveUp: [] }, 'md5-2'),
    ).toEqual({
      giveup: 'apk2',
      version: v3,
      offeredApkId: 'apk3',
    });
  });
});

describe('signed push events', () => {
  const keys = derivePushKeys(Buffer.alloc(32, 5));
  const { publicKey } = publicKeyInfo(keys);

  test('the key pair is derived from the master key: every process signs alike', () => {
    expect(publicKeyInfo(derivePushKeys(Buffer.alloc(32, 5))).publicKey).toBe(publicKey);
    expect(publicKeyInfo(derivePushKeys(Buffer.alloc(32, 6))).publicKey).not.toBe(publicKey);
  });

  test('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 0 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[2,{"y":0,"z":1}]},"b":1}',
    );
  });

  test('a signed event verifies, and fails when any field is altered', () => {
    const event = signEvent(keys, {
      type: 'version',
      package: 'p.q',
      deviceId: 'd1',
      md5: 'm',
      versionCode: 3,
      size: 10,
    });
    expect(verifyEvent(publicKey, event)).toBe(true);
    for (const [field, value] of Object.entries({
      package: 'p.r',
      deviceId: 'd2',
      md5: 'n',
      versionCode: 4,
      size: 11,
      type: 'giveup',
    })) {
      expect(verifyEvent(publicKey, { ...event, [field]: value })).toBe(false);
    }
    expect(verifyEvent(publicKey, { ...event, extra: 1 })).toBe(false);
    const { signature: _s, ...unsigned } = event;
    expect(verifyEvent(publicKey, unsigned)).toBe(false);
    const other = publicKeyInfo(derivePushKeys(Buffer.alloc(32, 7))).publicKey;
    expect(verifyEvent(other, event)).toBe(false);
  });
});

describe('abandonedDownload (PushLink lastDownloadHash)', () => {
  const m1 = 'a'.repeat(32);
  const m2 = 'b'.repeat(32);
  const current = { id: 'apk1', md5: m1 };
  test('running the current APK with another download kept: give that download up', () => {
    expect(
      abandonedDownload(current, { installedMd5: m1, lastDownloadedMd5: m2, gaveUp: [] }),
    ).toBe(m2);
  });
  test('once: a download already given up (by its MD5 mark) is not given up again', () => {
    expect(
      abandonedDownload(current, {
        installedMd5: m1,
        lastDownloadedMd5: m2,
        gaveUp: [`md5:${m2}`],
      }),
    ).toBeNull();
  });
  test('nothing downloaded, or the download is what runs: nothing to give up', () => {
    expect(
      abandonedDownload(current, { installedMd5: m1, lastDownloadedMd5: null, gaveUp: [] }),
    ).toBeNull();
    expect(
      abandonedDownload(current, { installedMd5: m1, lastDownloadedMd5: m1, gaveUp: [] }),
    ).toBeNull();
  });
  test('not running the current APK (an offer is due instead), or no current APK: nothing', () => {
    expect(
      abandonedDownload(current, { installedMd5: m2, lastDownloadedMd5: m1, gaveUp: [] }),
    ).toBeNull();
    expect(
      abandonedDownload(null, { installedMd5: m1, lastDownloadedMd5: m2, gaveUp: [] }),
    ).toBeNull();
  });
  test('the mark of an MD5', () => {
    expect(gaveUpMd5Mark(m2)).toBe(`md5:${m2}`);
  });
});
