import {
  abandonedDownload,
  decide,
  gaveUpMd5Mark,
  isAhead,
} from '../../../../shared/devices/decide';
import { canonicalJson } from '../../../../device-client/protocol/canonical-json';
import {
  derivePushKeys,
  publicKeyInfo,
  signEvent,
  verifyEvent,
} from '../../../../shared/devices/push-signing';

const v1 = { id: 'apk1', md5: 'md5-1', versionCode: 1 };
const v2 = { id: 'apk2', md5: 'md5-2', versionCode: 2 };
const fresh = { installedMd5: 'md5-1', installedVersionCode: 1, offeredApkId: null, gaveUp: [] };
/** Runs version 2, which the server knows (an APK record of that MD5). */
const onV2 = { ...fresh, installedMd5: 'md5-2', installedVersionCode: 2 };

describe('decide', () => {
  test('an installation running the current APK is told nothing', () => {
    expect(decide(v1, fresh, null)).toEqual({ giveup: null, version: null, offeredApkId: null });
  });
  test('a new current APK is offered', () => {
    expect(decide(v2, fresh, null)).toEqual({ giveup: null, version: v2, offeredApkId: 'apk2' });
  });
  test('no current APK: nothing to offer', () => {
    expect(
      decide(null, { ...fresh, installedMd5: null, installedVersionCode: null }, null),
    ).toEqual({
      giveup: null,
      version: null,
      offeredApkId: null,
    });
  });
  test('moving back before the newer one was applied gives it up, once', () => {
    const offered = { ...fresh, offeredApkId: 'apk2' };
    expect(decide(v1, offered, 'md5-2')).toEqual({
      giveup: 'apk2',
      version: null,
      offeredApkId: null,
    });
    expect(decide(v1, { ...offered, gaveUp: ['apk2'] }, 'md5-2').giveup).toBeNull();
  });
  test('moving back after the newer one was applied offers nothing: no downgrade, no give-up', () => {
    const applied = { ...onV2, offeredApkId: 'apk2' };
    expect(decide(v1, applied, 'md5-2')).toEqual({
      giveup: null,
      version: null,
      offeredApkId: null,
    });
  });
  test('an installed MD5 the server does not know is offered the current APK, as before', () => {
    const unknown = { ...fresh, installedMd5: 'md5-x', installedVersionCode: null };
    expect(decide(v1, unknown, null)).toEqual({ giveup: null, version: v1, offeredApkId: 'apk1' });
  });
  test('the same versionCode is not a downgrade: another build of it is offered', () => {
    const rebuilt = { id: 'apk1b', md5: 'md5-1b', versionCode: 1 };
    expect(decide(rebuilt, fresh, null).version).toEqual(rebuilt);
  });
  test('ahead of an APK offered before (a downgrade offered by an older server): given up, once', () => {
    const stale = { ...onV2, offeredApkId: 'apk1' };
    const once = { giveup: 'apk1', version: null, offeredApkId: null };
    expect(decide(v1, stale, 'md5-1')).toEqual(once);
    expect(decide(v1, { ...stale, gaveUp: ['apk1'] }, 'md5-1').giveup).toBeNull();
  });
  test('isAhead: only a known, higher versionCode than the target', () => {
    expect(isAhead(v1, 2)).toBe(true);
    expect(isAhead(v2, 2)).toBe(false);
    expect(isAhead(v2, 1)).toBe(false);
    expect(isAhead(v1, null)).toBe(false);
    expect(isAhead(null, 2)).toBe(false);
  });
  test('moving to a third APK gives the offered one up and offers the third', () => {
    const v3 = { id: 'apk3', md5: 'md5-3', versionCode: 3 };
    expect(decide(v3, { ...fresh, offeredApkId: 'apk2' }, 'md5-2')).toEqual({
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
  const current = { id: 'apk1', md5: m1, versionCode: 1 };
  const m3 = 'c'.repeat(32);
  test('running the current APK with another download kept: give that download up', () => {
    expect(
      abandonedDownload(current, {
        installedMd5: m1,
        lastDownloadedMd5: m2,
        gaveUp: [],
        installedVersionCode: 1,
      }),
    ).toBe(m2);
  });
  test('once: a download already given up (by its MD5 mark) is not given up again', () => {
    expect(
      abandonedDownload(current, {
        installedMd5: m1,
        installedVersionCode: 1,
        lastDownloadedMd5: m2,
        gaveUp: [`md5:${m2}`],
      }),
    ).toBeNull();
  });
  test('nothing downloaded, or the download is what runs: nothing to give up', () => {
    expect(
      abandonedDownload(current, {
        installedMd5: m1,
        installedVersionCode: 1,
        lastDownloadedMd5: null,
        gaveUp: [],
      }),
    ).toBeNull();
    expect(
      abandonedDownload(current, {
        installedMd5: m1,
        installedVersionCode: 1,
        lastDownloadedMd5: m1,
        gaveUp: [],
      }),
    ).toBeNull();
  });
  test('not running the current APK (an offer is due instead), or no current APK: nothing', () => {
    expect(
      abandonedDownload(current, {
        installedMd5: m2,
        installedVersionCode: null,
        lastDownloadedMd5: m1,
        gaveUp: [],
      }),
    ).toBeNull();
    expect(
      abandonedDownload(null, {
        installedMd5: m1,
        installedVersionCode: 1,
        lastDownloadedMd5: m2,
        gaveUp: [],
      }),
    ).toBeNull();
  });
  test('ahead of the current APK (running 2, current 1): a download other than 2 is given up', () => {
    const ahead = { installedMd5: m2, installedVersionCode: 2, gaveUp: [] };
    expect(abandonedDownload(current, { ...ahead, lastDownloadedMd5: m1 })).toBe(m1);
    expect(abandonedDownload(current, { ...ahead, lastDownloadedMd5: m3 })).toBe(m3);
    expect(abandonedDownload(current, { ...ahead, lastDownloadedMd5: m2 })).toBeNull();
  });
  test('the mark of an MD5', () => {
    expect(gaveUpMd5Mark(m2)).toBe(`md5:${m2}`);
  });
});
