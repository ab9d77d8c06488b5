/** Reads of the catalogue, always scoped by account: no query can reach another account's data. */
import type { Db, ObjectId } from 'mongodb';
import type { ApkDoc, AppDoc } from './types';
import { catalogCollections } from './collections';

export function findApp(db: Db, accountId: string, pkg: string): Promise<AppDoc | null> {
  return catalogCollections(db).apps.findOne({ accountId, package: pkg });
}

export async function currentApkOf(db: Db, app: AppDoc): Promise<ApkDoc | null> {
  if (!app.currentApkId) return null;
  return catalogCollections(db).apks.findOne({ _id: app.currentApkId, accountId: app.accountId });
}

/** Newest first. */
export function apksOf(db: Db, app: AppDoc): Promise<ApkDoc[]> {
  return catalogCollections(db)
    .apks.find({ appId: app._id, accountId: app.accountId })
    .sort({ versionCode: -1, uploadedAt: -1 })
    .toArray();
}

/** Every APK of the account, newest first (the apps list reads them at once). */
export function apksOfAccount(db: Db, accountId: string): Promise<ApkDoc[]> {
  return catalogCollections(db)
    .apks.find({ accountId })
    .sort({ versionCode: -1, uploadedAt: -1 })
    .toArray();
}

/**
 * The versionCode of each of the app's APKs, by MD5: what tells an installation's version from
 * the MD5 it reports (shared/devices/decide.ts, isAhead). One read of the app's APK records.
 */
export async function versionCodesOf(db: Db, app: AppDoc): Promise<Map<string, number>> {
  const docs = await catalogCollections(db)
    .apks.find({ appId: app._id, accountId: app.accountId })
    .project<Pick<ApkDoc, 'md5' | 'versionCode'>>({ _id: 0, md5: 1, versionCode: 1 })
    .toArray();
  return new Map(docs.map((d) => [d.md5, d.versionCode]));
}

/** The versionCode of the app's APK with this MD5, or null when the app has none. */
export async function versionCodeOf(db: Db, app: AppDoc, md5: string): Promise<number | null> {
  const apk = await catalogCollections(db).apks.findOne(
    { appId: app._id, accountId: app.accountId, md5 },
    { projection: { versionCode: 1 } },
  );
  return apk?.versionCode ?? null;
}

export function appsOf(db: Db, accountId: string): Promise<AppDoc[]> {
  return catalogCollections(db).apps.find({ accountId }).sort({ package: 1 }).toArray();
}

export function apkById(db: Db, accountId: string, id: ObjectId): Promise<ApkDoc | null> {
  return catalogCollections(db).apks.findOne({ _id: id, accountId });
}
