import type { Collection, Db } from 'mongodb';
import type { ApkDoc, AppDoc, UploadDoc } from './types';

export const APPS = 'apps';
export const APKS = 'apks';
export const UPLOADS = 'uploads';

export function catalog(db: Db): {
  apps: Collection<AppDoc>;
  apks: Collection<ApkDoc>;
  uploads: Collection<UploadDoc>;
} {
  return {
    apps: db.collection<AppDoc>(APPS),
    apks: db.collection<ApkDoc>(APKS),
    uploads: db.collection<UploadDoc>(UPLOADS),
  };
}

export async function ensureCatalogIndexes(db: Db): Promise<void> {
  const { apps, apks, uploads } = catalog(db);
  await apps.createIndex(
    { accountId: 1, package: 1 },
    { unique: true, name: 'account_package_unique' },
  );
  // One APK per hash per app: the duplicate rule, enforced by the database even under races.
  await apks.createIndex({ appId: 1, sha256: 1 }, { unique: true, name: 'app_sha256_unique' });
  await apks.createIndex({ uploadId: 1 }, { unique: true, name: 'upload_unique' });
  await apks.createIndex({ appId: 1, md5: 1 }, { name: 'app_md5' });
  await uploads.createIndex({ accountId: 1, createdAt: -1 }, { name: 'account_created' });
}
