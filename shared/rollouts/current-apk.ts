/**
 * Setting an app's current APK: one update of the app document under its lock (the pointer moves
 * and the app's `currentVersion` goes up by one; shared/catalog/app-lock.ts), then a version notice. Idempotent: making the current
 * APK current again changes nothing and re-sends the same notice, which the append skips as
 * already present (by the app's currentVersion: shared/notices/append-notice.ts).
 *
 * Making an APK current is a rollout at 100 % (docs/rollouts.md): a running or paused rollout of
 * this APK is completed (after the pointer moved, so no reader sees the APK withdrawn in
 * between), one of another APK is halted as superseded (before, so no reader sees it alive over
 * the new current APK). Either change is told to `recordChange` (the audit log and webhooks):
 * a superseded rollout as a `halt` with the reason `superseded`.
 */
import type { Db } from 'mongodb';
import { underAppLock } from '../catalog/app-lock';
import type { ApkDoc, AppDoc } from '../catalog/types';
import type { NoticeSink } from '../notices/notice-sink';
import { applyAction, findRollout, isActive } from './store';
import type { RolloutChange } from './types';
import { catalogCollections } from '../catalog/collections';
import { AppError } from '../errors';

export async function setCurrentApk(
  db: Db,
  notices: NoticeSink,
  apk: ApkDoc,
  now: Date,
  recordChange?: (change: RolloutChange) => Promise<void>,
): Promise<AppDoc> {
  const rollout = await findRollout(db, { _id: apk.appId, accountId: apk.accountId });
  const active = isActive(rollout) ? rollout : null;
  const superseded =
    active && !active.apkId.equals(apk._id)
      ? await applyAction(db, active, 'superseded', 'owner', null, now)
      : null;
  const app = await moveCurrent(db, apk, now);
  const completed =
    active?.apkId.equals(apk._id) && app.currentApkId?.equals(apk._id)
      ? await applyAction(db, active, 'complete', 'owner', null, now)
      : null;
  if (app.currentApkId?.equals(apk._id)) await publishNotice(notices, app);
  if (superseded)
    await recordChange?.({ app, action: 'halt', doc: superseded, reason: 'superseded' });
  if (completed) await recordChange?.({ app, action: 'complete', doc: completed });
  return app;
}

/** Moves the app's pointer to `apk` (no notice); the app as it is afterwards. */
export async function moveCurrent(db: Db, apk: ApkDoc, now: Date): Promise<AppDoc> {
  const { apps } = catalogCollections(db);
  const moved = await underAppLock(db, apk.appId, () =>
    apps.findOneAndUpdate(
      { _id: apk.appId, currentApkId: { $ne: apk._id } },
      { $set: { currentApkId: apk._id, updatedAt: now }, $inc: { currentVersion: 1 } },
      { returnDocument: 'after' },
    ),
  );
  const app = moved ?? (await apps.findOne({ _id: apk.appId }));
  if (!app) {
    throw new AppError('STORE_INCONSISTENT', {
      message: `app ${apk.appId.toHexString()} not found`,
    });
  }
  return app;
}

export function publishNotice(notices: NoticeSink, app: AppDoc): Promise<void> {
  return notices.publish({
    accountId: app.accountId,
    appId: app._id.toHexString(),
    package: app.package,
    apkId: app.currentApkId?.toHexString() ?? null,
    currentVersion: app.currentVersion,
  });
}

/**
 * Which APK some devices should run changed without the current APK moving (a rollout started,
 * advanced, paused or halted): the app's `currentVersion` goes up and a notice goes out, so
 * every API process re-decides its open streams and a reconnecting device is not told "nothing
 * new" by its Last-Event-ID.
 */
export async function announceTargets(
  db: Db,
  notices: NoticeSink,
  app: Pick<AppDoc, '_id'>,
  now: Date,
): Promise<AppDoc> {
  const bumped = await underAppLock(db, app._id, () =>
    catalogCollections(db).apps.findOneAndUpdate(
      { _id: app._id },
      { $set: { updatedAt: now }, $inc: { currentVersion: 1 } },
      { returnDocument: 'after' },
    ),
  );
  if (!bumped) {
    throw new AppError('STORE_INCONSISTENT', { message: `app ${app._id.toHexString()} not found` });
  }
  await publishNotice(notices, bumped);
  return bumped;
}
