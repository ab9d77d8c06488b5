/**
 * What one stream is told by a sync and the offer state kept after (api/push/hub.ts, tellStream),
 * with literal APKs and a channel that records what it is asked to say.
 */
import { ObjectId } from 'mongodb';
import type { Delivery, SignedOnce } from '../../../../api/push/channel';
import { tellStream, type Stream } from '../../../../api/push/hub';
import type { ApkDoc } from '../../../../shared/catalog/types';

const M1 = '11111111111111111111111111111111';
const M2 = '22222222222222222222222222222222';
const apk1 = { _id: new ObjectId('aaaaaaaaaaaaaaaaaaaaaaa1'), md5: M1, versionCode: 1 } as ApkDoc;
const apk2 = { _id: new ObjectId('aaaaaaaaaaaaaaaaaaaaaaa2'), md5: M2, versionCode: 2 } as ApkDoc;
const ID2 = 'aaaaaaaaaaaaaaaaaaaaaaa2';
const notices = {} as SignedOnce;

function stream(s: Partial<Stream>): Stream & { said: Delivery[] } {
  const said: Delivery[] = [];
  return {
    installationId: 'i1',
    deviceId: 'd1',
    metadata: [],
    installedMd5: M1,
    lastDownloadedMd5: null,
    enabled: true,
    offer: { offeredApkId: null, gaveUp: [] },
    conn: { deliver: (_n: unknown, d: Delivery) => void said.push(d) } as never,
    said,
    ...s,
  };
}
/** The app's APKs' versionCodes by MD5, as the hub loads them. */
const versionCodes = new Map([
  [M1, 1],
  [M2, 2],
]);
const ctx = { pkg: 'dev.apkrelay.sample', notices, quietOffer: false, versionCodes };

test('an outdated stream is offered the current APK; the offer is remembered', () => {
  const s = stream({});
  expect(tellStream(s, { ...ctx, current: apk2, offered: null })).toEqual({
    offeredApkId: ID2,
    gaveUp: [],
  });
  expect(s.said).toEqual([{ package: ctx.pkg, version: apk2, giveup: null, installedMd5: M1 }]);
});

test('an offer abandoned (current moved back) is given up, remembered by id and by MD5', () => {
  const s = stream({ offer: { offeredApkId: ID2, gaveUp: [] } });
  expect(tellStream(s, { ...ctx, current: apk1, offered: apk2 })).toEqual({
    offeredApkId: null,
    gaveUp: [ID2, `md5:${M2}`],
  });
  expect(s.said[0]!.giveup).toEqual({ apkId: ID2, apk: apk2 });
  // The same device reconnecting over PushLink, its last download that APK: nothing more.
  const again = stream({
    lastDownloadedMd5: M2,
    offer: { offeredApkId: null, gaveUp: [ID2, `md5:${M2}`] },
  });
  expect(tellStream(again, { ...ctx, current: apk1, offered: null })).toBeNull();
  expect(again.said).toEqual([{ package: ctx.pkg, version: null, giveup: null, installedMd5: M1 }]);
});

test('a PushLink download never offered here is given up once, by its MD5', () => {
  const s = stream({ lastDownloadedMd5: M2 });
  const kept = tellStream(s, { ...ctx, current: apk1, offered: null });
  expect(kept).toEqual({ offeredApkId: null, gaveUp: [`md5:${M2}`] });
  expect(s.said[0]!.giveup).toEqual({ apkId: null, apk: null });
  const later = stream({ lastDownloadedMd5: M2, offer: kept! });
  expect(tellStream(later, { ...ctx, current: apk1, offered: null })).toBeNull();
  expect(later.said[0]!.giveup).toBeNull();
});

test('an SSE client that saw the latest notice is not offered the same APK again', () => {
  const s = stream({ offer: { offeredApkId: ID2, gaveUp: [] } });
  expect(tellStream(s, { ...ctx, quietOffer: true, current: apk2, offered: apk2 })).toBeNull();
  expect(s.said[0]!.version).toBeNull();
});

test('a stream running version 2 while version 1 is current is offered nothing (no downgrade)', () => {
  const s = stream({ installedMd5: M2 });
  expect(tellStream(s, { ...ctx, current: apk1, offered: null })).toBeNull();
  expect(s.said).toEqual([{ package: ctx.pkg, version: null, giveup: null, installedMd5: M2 }]);
  // Its MD5 unknown to the server (no APK record): offered the current APK, as before.
  const unknown = stream({ installedMd5: M2 });
  const none = { ...ctx, versionCodes: new Map<string, number>() };
  expect(tellStream(unknown, { ...none, current: apk1, offered: null })).toEqual({
    offeredApkId: 'aaaaaaaaaaaaaaaaaaaaaaa1',
    gaveUp: [],
  });
  expect(unknown.said[0]!.version).toBe(apk1);
});
