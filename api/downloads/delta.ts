/**
 * `GET /download/delta` (docs/delta-updates.md): a proven patch from the APK a device runs (its
 * MD5) to a target APK (its SHA-256), on the hosts that serve `/download`, with its
 * authentication, refusals, download counting (as a download of the target APK) and Range
 * support. Only `ready` patches of the caller's own account are served: the smallest of the
 * formats the client accepts (`formats`, shared/delta/served-format.ts). A pair the app's live
 * generation job will still make is `503 Delta not ready yet.` with Retry-After (delta-pending.ts);
 * anything else is `404 Delta not available.` and the device downloads the full APK.
 */
import type { Request, Response } from 'express';
import { apkById, findApp } from '../../shared/catalog/queries';
import { DELTA_BUCKET, deltaCollections } from '../../shared/delta/collections';
import { NOT_READY_RETRY_AFTER_S } from '../../shared/delta/pending';
import {
  awaitsFormat,
  choosePatch,
  formatOf,
  parseFormats,
} from '../../shared/delta/served-format';
import { gridFsBlobStore } from '../../shared/storage/blob-store';
import type { ApiDeps } from '../deps';
import { DEVICE_HOSTS, type Route } from '../route-table';
import { sendText } from '../text-reply';
import { deltaDownloadContract } from './contracts';
import { deltaPending } from './delta-pending';
import { DOWNLOAD_TEXT, downloadAccount, noteDownload, param } from './routes';
import { sendApk } from './send-apk';

export const DELTA_CONTENT_TYPE = 'application/vnd.apkrelay.delta';
export const DELTA_NOT_AVAILABLE = 'Delta not available.';
export const DELTA_NOT_READY = 'Delta not ready yet.';
const BAD_HASHES = 'Download failed: from must be an MD5 and to a SHA-256 (lower-case hex).';
const BAD_FORMATS =
  'Download failed: formats must be a comma-separated list of patch formats (1, 2).';

/** Every document of the pair (one per format tried): each is that format's final outcome. */
async function pairDocs(deps: ApiDeps, accountId: string, pkg: string, from: string, to: string) {
  return deltaCollections(deps.db)
    .deltas.find({ accountId, package: pkg, fromMd5: from, toSha256: to })
    .toArray();
}

export async function deltaDownload(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const pkg = param(req, 'package');
  const account = await downloadAccount(deps, req, res, pkg ?? '');
  if (!account) return;
  const app = pkg ? await findApp(deps.db, account.id, pkg) : null;
  if (!app) return sendText(res, 404, DOWNLOAD_TEXT.UNKNOWN_PACKAGE);
  const [from, to] = [param(req, 'from') ?? '', param(req, 'to') ?? ''];
  if (!/^[0-9a-f]{32}$/.test(from) || !/^[0-9a-f]{64}$/.test(to)) {
    return sendText(res, 400, BAD_HASHES);
  }
  // Read raw: an empty or repeated `formats` is malformed, not absent.
  const rawFormats = req.query['formats'];
  const formats = typeof rawFormats === 'object' ? null : parseFormats(rawFormats);
  if (!formats) return sendText(res, 400, BAD_FORMATS);
  const docs = await pairDocs(deps, account.id, app.package, from, to);
  const patch = choosePatch(docs, formats);
  if (!patch && awaitsFormat(docs, formats) && (await deltaPending(deps, app, from, to))) {
    res.setHeader('Retry-After', String(NOT_READY_RETRY_AFTER_S));
    return sendText(res, 503, DELTA_NOT_READY);
  }
  const target = patch ? await apkById(deps.db, account.id, patch.toApkId) : null;
  if (!patch || !target || !patch.blobId || !patch.wrappedKey || !patch.noncePrefix) {
    return sendText(res, 404, DELTA_NOT_AVAILABLE);
  }
  const deviceId = param(req, 'deviceId');
  if (deviceId && !(await noteDownload(deps, res, app, deviceId, target))) return;
  res.setHeader('X-Apkrelay-Delta-From', from);
  res.setHeader('X-Apkrelay-Delta-To', to);
  res.setHeader('X-Apkrelay-Delta-Format', String(formatOf(patch)));
  // The patch is sent as a stored blob like an APK: its own size, ETag, key and blob.
  const blob = {
    ...target,
    size: patch.size,
    sha256: patch.sha256,
    blobId: patch.blobId,
    wrappedKey: patch.wrappedKey,
    noncePrefix: patch.noncePrefix,
  };
  // Patches live in their own bucket (no local cache: they are small and short-lived), and never
  // in the memory of decrypted APKs (it reads the APKs' bucket).
  const blobs = gridFsBlobStore(deps.db, DELTA_BUCKET);
  const { memory: _apksOnly, ...sendDeps } = deps;
  await sendApk(
    req,
    res,
    blob,
    { ...sendDeps, blobs },
    {
      contentType: DELTA_CONTENT_TYPE,
      filename: `${app.package}.ardelta`,
    },
  );
}

export function deltaRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'get',
      path: '/download/delta',
      hosts: DEVICE_HOSTS,
      access: 'apiKey',
      contract: deltaDownloadContract,
      handlers: [(req, res) => deltaDownload(deps, req, res)],
    },
  ];
}
