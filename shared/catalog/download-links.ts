/**
 * Hashed download links: a URL that carries no credential. The token is `<id>.<mac>`, where the
 * MAC is an HMAC-SHA256 (128 bits kept) of the id under the pinned `download-link` key (stored
 * sealed in the database, so master key rotations leave issued links valid: pinned-keys.ts): a
 * token that was not issued here, or has one character changed, is refused before any database
 * read. The link document binds the token to one APK and holds its expiry, revocation and
 * download count.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ObjectId, type Db } from 'mongodb';
import type { KeyRing } from '../crypto/keys';
import type { ApkDoc, AppDoc } from './types';
import { AppError } from '../errors';
import { withDocLock } from '../storage/doc-lock';
import { catalogCollections, type DownloadLinkDoc } from './collections';

function mac(keys: KeyRing, id: string): Buffer {
  return createHmac('sha256', keys.pinned('download-link')).update(id).digest().subarray(0, 16);
}

export function linkToken(keys: KeyRing, id: ObjectId): string {
  const hex = id.toHexString();
  return `${hex}.${mac(keys, hex).toString('base64url')}`;
}

/** The link id of a genuine token, or null. */
export function verifyLinkToken(keys: KeyRing, token: string): ObjectId | null {
  const match = /^([0-9a-f]{24})\.([A-Za-z0-9_-]{22})$/.exec(token);
  if (!match) return null;
  const presented = Buffer.from(match[2]!, 'base64url');
  // base64url of 16 bytes is 22 characters whose last one carries 2 unused bits: compare the
  // re-encoding too, so that one changed character is never accepted.
  if (presented.length !== 16 || presented.toString('base64url') !== match[2]) return null;
  return timingSafeEqual(presented, mac(keys, match[1]!)) ? new ObjectId(match[1]) : null;
}

export type LinkState = 'ok' | 'expired' | 'revoked' | 'exhausted';

/**
 * `resumable`: the request continues a download (a Range after byte 0) while one of the link's
 * counted downloads is unfinished (hasUnfinishedTransfer). A used-up link allows only that; an
 * expired or revoked one never.
 */
export function linkState(link: DownloadLinkDoc, now: Date, resumable = false): LinkState {
  if (link.revokedAt) return 'revoked';
  if (link.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (resumable) return 'ok';
  if (link.maxDownloads !== null && link.downloads >= link.maxDownloads) return 'exhausted';
  return 'ok';
}

/** Whether one of the link's counted downloads has not yet sent its last byte. */
export async function hasUnfinishedTransfer(db: Db, link: DownloadLinkDoc): Promise<boolean> {
  const found = await catalogCollections(db).downloadTransfers.findOne(
    { linkId: link._id },
    { projection: { _id: 1 } },
  );
  return found !== null;
}

/**
 * A counted download's last byte was sent: it can no longer be continued. `transferId` is the one
 * this reply counted, or null when the reply continued an unfinished one (one of the link's is
 * over then: they are alike).
 */
export async function finishDownload(
  db: Db,
  link: DownloadLinkDoc,
  transferId: ObjectId | null,
): Promise<void> {
  await catalogCollections(db).downloadTransfers.deleteOne(
    transferId ? { _id: transferId } : { linkId: link._id },
  );
}

/** Every write of a link document runs under its lock (shared/storage/doc-lock.ts). */
function underLinkLock<T>(db: Db, id: ObjectId, write: () => Promise<T>): Promise<T> {
  return withDocLock(db, `download-link:${id.toHexString()}`, write);
}

/**
 * Counts one download exactly (under the link's lock) and records it as a transfer under way (until its last byte is
 * sent: finishDownload); null when the link was used up (or revoked) meanwhile. The only update
 * of the link document besides its revocation, and conditional: a revoked link counts nothing.
 */
export async function countDownload(
  db: Db,
  link: DownloadLinkDoc,
  now: Date,
): Promise<ObjectId | null> {
  const filter =
    link.maxDownloads === null
      ? { _id: link._id, revokedAt: null, expiresAt: { $gt: now } }
      : {
          _id: link._id,
          revokedAt: null,
          expiresAt: { $gt: now },
          downloads: { $lt: link.maxDownloads },
        };
  const { downloadLinks, downloadTransfers } = catalogCollections(db);
  // Under the link's lock: two downloads counted at once would both pass the filter and count one.
  const result = await underLinkLock(db, link._id, () =>
    downloadLinks.updateOne(filter, { $inc: { downloads: 1 } }),
  );
  if (result.modifiedCount !== 1) return null;
  const transferId = new ObjectId();
  await downloadTransfers.insertOne({ _id: transferId, linkId: link._id, startedAt: now });
  return transferId;
}

/** Records a new download link to `apk` (made by the JSON API and the web administration). */
export async function insertDownloadLink(
  deps: { readonly db: Db; readonly now: () => Date },
  app: AppDoc,
  apk: ApkDoc,
  ttlSeconds: number,
  maxDownloads: number | null,
): Promise<DownloadLinkDoc> {
  const now = deps.now();
  const link: DownloadLinkDoc = {
    _id: new ObjectId(),
    accountId: app.accountId,
    appId: app._id,
    apkId: apk._id,
    package: app.package,
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
    maxDownloads,
    downloads: 0,
    revokedAt: null,
  };
  await catalogCollections(deps.db).downloadLinks.insertOne(link);
  return link;
}

/** The app's links, newest first. */
export function linksOf(db: Db, app: AppDoc): Promise<DownloadLinkDoc[]> {
  return catalogCollections(db)
    .downloadLinks.find({ appId: app._id, accountId: app.accountId })
    .sort({ createdAt: -1 })
    .toArray();
}

/** Revokes the account's link `id` (as the owner wrote it); false when it has no such link. */
export async function revokeDownloadLink(
  db: Db,
  accountId: string,
  id: string,
  now: Date,
): Promise<'revoked' | 'unchanged' | 'missing'> {
  if (!/^[0-9a-f]{24}$/.test(id) || !ObjectId.isValid(id)) return 'missing';
  const _id = new ObjectId(id);
  let revokedHere = false;
  // On a store that rewrites a whole document per update (the embedded one does), a download
  // counted at the same moment could overwrite the revocation: both write under the link's lock,
  // and the revocation is still read back, and set again until it holds (a transfer's end is
  // written elsewhere: DownloadTransferDoc). Revoked here, or already: a revoked link keeps
  // its first revocation (and its one audit entry).
  for (let attempt = 1; ; attempt++) {
    const result = await underLinkLock(db, _id, () =>
      catalogCollections(db).downloadLinks.updateOne(
        { _id, accountId, revokedAt: null },
        { $set: { revokedAt: now } },
      ),
    );
    revokedHere ||= result.modifiedCount === 1;
    const link = await catalogCollections(db).downloadLinks.findOne(
      { _id, accountId },
      { projection: { revokedAt: 1 } },
    );
    if (!link) return 'missing';
    if (link.revokedAt) return revokedHere ? 'revoked' : 'unchanged';
    if (attempt === 5) {
      throw new AppError('STORE_INCONSISTENT', {
        message: `download link ${id}: the revocation did not hold`,
      });
    }
  }
}
