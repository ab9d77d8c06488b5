/**
 * Download links: created and revoked by the owner (Bearer), used by anyone holding the URL on the
 * web host (`/d/{token}`), with a QR code of the URL for the first install on a device.
 */
import type { Request, Response } from 'express';
import type { ObjectId } from 'mongodb';
import QRCode from 'qrcode';
import {
  countDownload,
  finishDownload,
  hasUnfinishedTransfer,
  insertDownloadLink,
  linksOf,
  linkState,
  linkToken,
  revokeDownloadLink,
  verifyLinkToken,
  type LinkState,
} from '../../shared/catalog/download-links';
import { pickApk } from '../../shared/catalog/pick-apk';
import { presentApk } from '../../shared/catalog/present';
import { apkById, apksOf, currentApkOf } from '../../shared/catalog/queries';
import { AppError } from '../../shared/errors';
import { audit, linkChange } from '../audit-context';
import { bearerAuth, currentAccount } from '../auth';
import type { ApiDeps } from '../deps';
import { requestedRange, sendApk } from './send-apk';
import { appOf } from '../owned-app';
import {
  createLinkContract,
  listLinksContract,
  qrPngContract,
  qrSvgContract,
  revokeLinkContract,
  useLinkContract,
} from './link-contracts';
import { inputOf } from '../request-validation';
import type { Route } from '../route-table';
import { sendText } from '../text-reply';
import { type DownloadLinkDoc, catalogCollections } from '../../shared/catalog/collections';

function urlOf(deps: ApiDeps, link: DownloadLinkDoc): string {
  return `${deps.publicUrls.web}/d/${linkToken(deps.keys, link._id)}`;
}

function present(deps: ApiDeps, link: DownloadLinkDoc) {
  const url = urlOf(deps, link);
  return {
    id: link._id.toHexString(),
    url,
    qrSvgUrl: `${url}/qr.svg`,
    qrPngUrl: `${url}/qr.png`,
    expiresAt: link.expiresAt.toISOString(),
    maxDownloads: link.maxDownloads,
    downloads: link.downloads,
    revoked: link.revokedAt !== null,
  };
}

/** The link of a genuine token, or a 404 reply. */
async function knownLink(deps: ApiDeps, req: Request, res: Response) {
  const id = verifyLinkToken(deps.keys, String(req.params.token));
  const link = id ? await catalogCollections(deps.db).downloadLinks.findOne({ _id: id }) : null;
  if (!link) sendText(res, 404, 'Unknown download link.');
  return link;
}

/** True when the state allows the request; else replies 410 (expired, revoked, used up). */
function allowed(res: Response, state: LinkState): boolean {
  if (state === 'ok') return true;
  sendText(res, 410, `This download link is ${state === 'exhausted' ? 'used up' : state}.`);
  return false;
}

export async function createLink(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const app = await appOf(deps, res, req);
  const { body } = inputOf(createLinkContract, res);
  const named = 'sha256' in body || 'md5' in body || 'versionCode' in body;
  const apk = named ? pickApk(await apksOf(deps.db, app), body) : await currentApkOf(deps.db, app);
  if (!apk)
    throw new AppError('NOT_FOUND', {
      message: 'the app has no current APK; name one by sha256',
    });
  const link = await insertDownloadLink(deps, app, apk, body.ttlSeconds, body.maxDownloads ?? null);
  await audit(deps, req, res, linkChange('download-link.created', link, apk));
  res.status(201).json({ ...present(deps, link), apk: presentApk(apk) });
}

export async function listLinks(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const app = await appOf(deps, res, req);
  const all = await linksOf(deps.db, app);
  res.json({ links: all.map((link) => present(deps, link)) });
}

export async function revokeLink(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const id = String(req.params.id);
  const accountId = currentAccount(res).id;
  const revoked = await revokeDownloadLink(deps.db, accountId, id, deps.now());
  if (revoked === 'missing') throw new AppError('NOT_FOUND', { message: 'no such download link' });
  if (revoked === 'revoked') {
    const resource = { kind: 'download-link', id };
    await audit(deps, req, res, { accountId, action: 'download-link.revoked', resource });
  }
  res.status(204).end();
}

/**
 * GET or HEAD /d/{token}. A request is either a new download or the continuation of one:
 * - A continuation asks for a Range the reply honours (no If-Range, or one equal to the ETag)
 *   that starts after byte 0. It is served uncounted while one of the link's counted downloads
 *   is unfinished, that is, no reply has yet sent its last byte (an aborted transfer, or one
 *   fetched in parts). Once a reply has sent the last byte, that download is over.
 * - Anything else is a new download: a plain GET, a Range from byte 0, a Range that If-Range
 *   voids (the reply is the whole file), and a continuation on a link without an unfinished
 *   download. It is counted against maxDownloads first; a used-up link answers 410.
 * - HEAD sends no byte and counts nothing, but is refused exactly as the GET would be.
 * An expired or revoked link serves nothing in any shape. A continuation is not bound to the
 * client that began the download: while one is unfinished, whoever holds the URL may continue
 * it (as that client could hand on the bytes). "Sent" means handed to the connection: a
 * transfer that breaks while its last bytes sit in socket buffers counts as delivered, and on a
 * used-up link its client needs a new link.
 */
export async function useLink(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const link = await knownLink(deps, req, res);
  if (!link) return;
  const apk = await apkById(deps.db, link.accountId, link.apkId);
  const range = apk ? requestedRange(req, apk) : null;
  const continuing = (range?.kind === 'partial' && range.start > 0) || range?.kind === 'empty';
  const resumed = continuing && (await hasUnfinishedTransfer(deps.db, link));
  if (!allowed(res, linkState(link, deps.now(), resumed))) return;
  if (!apk) return sendText(res, 410, 'This download link points to an APK that no longer exists.');
  let transfer: ObjectId | null = null;
  if (req.method !== 'HEAD' && !resumed) {
    transfer = await countDownload(deps.db, link, deps.now());
    if (!transfer) return sendText(res, 410, 'This download link is used up.');
  }
  const sent = await sendApk(req, res, apk, deps);
  if (sent.reachedEnd && (transfer || resumed)) await finishDownload(deps.db, link, transfer);
}

/** The QR code of a live link's URL (404 unknown; 410 expired, revoked or used up). */
export async function linkQr(
  deps: ApiDeps,
  format: 'svg' | 'png',
  req: Request,
  res: Response,
): Promise<void> {
  const link = await knownLink(deps, req, res);
  if (!link || !allowed(res, linkState(link, deps.now()))) return;
  const url = urlOf(deps, link);
  res.setHeader('Cache-Control', 'private, max-age=300');
  if (format === 'svg') {
    res.type('image/svg+xml').send(await QRCode.toString(url, { type: 'svg', margin: 2 }));
  } else {
    res.type('image/png').send(await QRCode.toBuffer(url, { type: 'png', margin: 2, scale: 6 }));
  }
}

export function downloadLinkRoutes(deps: ApiDeps): Route[] {
  const auth = bearerAuth(deps);
  return [
    {
      method: 'post',
      path: '/api/v2/apps/:package/download-links',
      hosts: ['admin'],
      access: 'apiKey',
      contract: createLinkContract,
      handlers: [auth, (req, res) => createLink(deps, req, res)],
    },
    {
      method: 'get',
      path: '/api/v2/apps/:package/download-links',
      hosts: ['admin'],
      access: 'apiKey',
      contract: listLinksContract,
      handlers: [auth, (req, res) => listLinks(deps, req, res)],
    },
    {
      method: 'delete',
      path: '/api/v2/download-links/:id',
      hosts: ['admin'],
      access: 'apiKey',
      contract: revokeLinkContract,
      handlers: [auth, (req, res) => revokeLink(deps, req, res)],
    },
    {
      method: 'get',
      path: '/d/:token',
      hosts: ['web', 'admin'],
      access: 'public',
      contract: useLinkContract,
      handlers: [(req, res) => useLink(deps, req, res)],
    },
    {
      method: 'get',
      path: '/d/:token/qr.svg',
      hosts: ['web', 'admin'],
      access: 'public',
      contract: qrSvgContract,
      handlers: [(req, res) => linkQr(deps, 'svg', req, res)],
    },
    {
      method: 'get',
      path: '/d/:token/qr.png',
      hosts: ['web', 'admin'],
      access: 'public',
      contract: qrPngContract,
      handlers: [(req, res) => linkQr(deps, 'png', req, res)],
    },
  ];
}
