/**
 * Setting an app's current APK: one atomic update of the app document (the pointer moves and the
 * app's `currentVersion` goes up by one), then a version notice. Idempotent: making the current
 * APK current again changes nothing and re-sends the same notice, which the queue de-duplicates
 * by (app, currentVersion).
 */
import type { Db } from 'mongodb';
import type { VersionNoticePayload } from '../queues/version-notice';
import { catalog } from './collections';
import type { ApkDoc, AppDoc } from './types';

export interface NoticeSink {
  publish(notice: VersionNoticePayload): Promise<void>;
}

export async function setCurrentApk(
  db: Db,
  notices: NoticeSink,
  apk: ApkDoc,
  now: Date,
): Promise<AppDoc> {
  const { apps } = catalog(db);
  const moved = await apps.findOneAndUpdate(
    { _id: apk.appId, currentApkId: { $ne: apk._id } },
    { $set: { currentApkId: apk._id, updatedAt: now }, $inc: { currentVersion: 1 } },
    { returnDocument: 'after' },
  );
  const app = moved ?? (await apps.findOne({ _id: apk.appId }));
  if (!app) throw new Error(`app ${apk.appId.toHexString()} not found`);
  if (app.currentApkId?.equals(apk._id)) {
    await notices.publish({
      accountId: app.accountId,
      appId: app._id.toHexString(),
      package: app.package,
      apkId: apk._id.toHexString(),
      currentVersion: app.currentVersion,
    });
  }
  return app;
}
