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

export function appsOf(db: Db, accountId: string): Promise<AppDoc[]> {
  return catalogCollections(db).apps.find({ accountId }).sort({ package: 1 }).toArray();
}

export function apkById(db: Db, accountId: string, id: ObjectId): Promise<ApkDoc | null> {
  return catalogCollections(db).apks.findOne({ _id: id, accountId });
}
