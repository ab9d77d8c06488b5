/** The app an upload belongs to: created on its first upload, with that APK's signer. */
import { MongoServerError, ObjectId, type Db } from 'mongodb';
import { underAppLock } from '../../shared/catalog/app-lock';
import type { AppDoc } from '../../shared/catalog/types';
import type { AcceptableApk } from '../../shared/uploads/judge-apk';
import { catalogCollections } from '../../shared/catalog/collections';

export async function upsertApp(
  db: Db,
  accountId: string,
  apk: AcceptableApk,
  label: string | null,
  now: Date,
): Promise<AppDoc> {
  const { apps } = catalogCollections(db);
  const filter = { accountId, package: apk.package };
  const existing = await apps.findOne(filter);
  if (existing) {
    if (label && label !== existing.label) {
      await underAppLock(db, existing._id, () =>
        apps.updateOne({ _id: existing._id }, { $set: { label, updatedAt: now } }),
      );
    }
    return existing;
  }
  const doc: AppDoc = {
    _id: new ObjectId(),
    accountId,
    package: apk.package,
    label,
    signerSha256: apk.signerSha256,
    currentApkId: null,
    currentVersion: 0,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await apps.insertOne(doc);
    return doc;
  } catch (err) {
    // A concurrent first upload of the same package created it: use theirs.
    if (err instanceof MongoServerError && err.code === 11000) {
      const app = await apps.findOne(filter);
      if (app) return app;
    }
    throw err;
  }
}
