/**
 * The catalog's collections and their indexes (every feature of shared/ has one such file, of the
 * same shape: `<feature>Collections(db)` and `ensure<Feature>Indexes(db)`; shared/indexes.ts
 * gathers the indexes): apps, their APK records, uploads, the download links to an APK and their transfers under way.
 */
import type { Db, ObjectId } from 'mongodb';
import { collectionsOf } from '../collections';
import type { ApkDoc, AppDoc, UploadDoc } from './types';

export const APPS = 'apps';
export const APKS = 'apks';
export const UPLOADS = 'uploads';
export const DOWNLOAD_LINKS = 'download_links';
export const DOWNLOAD_TRANSFERS = 'download_transfers';

export interface DownloadLinkDoc {
  _id: ObjectId;
  accountId: string;
  appId: ObjectId;
  apkId: ObjectId;
  package: string;
  createdAt: Date;
  expiresAt: Date;
  /** null: unlimited. */
  maxDownloads: number | null;
  downloads: number;
  revokedAt: Date | null;
}

/**
 * One counted download of a link whose last byte no reply has sent yet: while a link has one, a
 * continuation (a Range after byte 0) is served uncounted. A document of its own per transfer,
 * never a counter on the link: on a store that rewrites a whole document per update (the
 * embedded one does), a transfer's end written to the link could undo a revocation made at the
 * same moment, and two transfers' ends could lose one another.
 */
export interface DownloadTransferDoc {
  _id: ObjectId;
  linkId: ObjectId;
  startedAt: Date;
}

export function catalogCollections(db: Db) {
  return collectionsOf<{
    apps: AppDoc;
    apks: ApkDoc;
    uploads: UploadDoc;
    downloadLinks: DownloadLinkDoc;
    downloadTransfers: DownloadTransferDoc;
  }>(db, {
    apps: APPS,
    apks: APKS,
    uploads: UPLOADS,
    downloadLinks: DOWNLOAD_LINKS,
    downloadTransfers: DOWNLOAD_TRANSFERS,
  });
}

export async function ensureCatalogIndexes(db: Db): Promise<void> {
  const { apps, apks, uploads, downloadTransfers } = catalogCollections(db);
  await apps.createIndex(
    { accountId: 1, package: 1 },
    { unique: true, name: 'account_package_unique' },
  );
  // One APK per hash per app: the duplicate rule, enforced by the database even under races.
  await apks.createIndex({ appId: 1, sha256: 1 }, { unique: true, name: 'app_sha256_unique' });
  await apks.createIndex({ uploadId: 1 }, { unique: true, name: 'upload_unique' });
  await apks.createIndex({ appId: 1, md5: 1 }, { name: 'app_md5' });
  await uploads.createIndex({ accountId: 1, createdAt: -1 }, { name: 'account_created' });
  await downloadTransfers.createIndex({ linkId: 1 }, { name: 'link' });
}
