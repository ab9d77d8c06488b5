/**
 * The reply to `GET /download` with DOWNLOAD_OFFLOAD=nginx: the API has done every check and
 * recorded the download; nginx sends the bytes. The reply carries the API's own headers (type,
 * disposition, ETag, cache rules) and `X-Accel-Redirect` to an internal nginx location over the
 * offload directory (offload-dir.ts; ops/deploy/nginx/apkrelay.conf.in):
 * - `OFFLOAD_RANGED`: nginx answers the client's Range itself; the deploy config makes it compare
 *   If-Range with the API's ETag, which requestedRange already found equal;
 * - `OFFLOAD_WHOLE` (no ranges): a Range the API voids (an If-Range other than the ETag) or
 *   ignores (another unit) gets the whole file, as without offload.
 * Whatever nginx might answer differently is answered by the API itself as before (send-apk.ts):
 * HEAD, a resume at the exact size (an empty 200, where nginx says 416), refusals (416), a Range
 * spelt other than `bytes=N-M`; and so is every download when the file cannot be written (a
 * damaged stored segment then fails there as always).
 */
import type { Request, Response } from 'express';
import type { ApkDoc } from '../../shared/catalog/types';
import { coerceError } from '../../shared/errors';
import { attachmentDisposition } from './content-disposition';
import type { OffloadDir } from './offload-dir';
import { APK_CONTENT_TYPE, requestedRange, sendApk, type SendApkDeps } from './send-apk';

export const OFFLOAD_RANGED = '/_apkrelay/apk/';
export const OFFLOAD_WHOLE = '/_apkrelay/apk-whole/';

/** The Range header spelt as nginx parses it the same way decideRange does. */
const PLAIN_RANGE = /^bytes=\d*-\d*$/i;

/** Where nginx should send `req`'s bytes from, or null when the API answers itself. */
function location(req: Request, apk: ApkDoc): string | null {
  if (req.method !== 'GET') return null;
  const range = requestedRange(req, apk);
  const header = req.header('range');
  if (range.kind === 'full') return header === undefined ? OFFLOAD_RANGED : OFFLOAD_WHOLE;
  if (range.kind === 'partial' && PLAIN_RANGE.test(header ?? '')) return OFFLOAD_RANGED;
  return null;
}

export async function offloadApk(
  req: Request,
  res: Response,
  apk: ApkDoc,
  deps: SendApkDeps & { readonly offload: OffloadDir },
): Promise<void> {
  const where = location(req, apk);
  const file = where
    ? await deps.offload.fileFor(apk).catch((err: unknown) => {
        deps.log.warn({ err: coerceError(err), apkId: apk._id.toHexString() }, 'offload failed');
        return null;
      })
    : null;
  if (!where || !file) {
    await sendApk(req, res, apk, deps);
    return;
  }
  const range = requestedRange(req, apk);
  res.setHeader('Content-Type', APK_CONTENT_TYPE);
  res.setHeader('Content-Disposition', attachmentDisposition(`${apk.package}.apk`));
  res.setHeader('ETag', `"${apk.sha256}"`);
  res.setHeader('Cache-Control', 'private, no-transform');
  res.setHeader('X-Accel-Redirect', `${where}${file}`);
  res.status(200).end();
  const length = range.kind === 'partial' ? range.end - range.start + 1 : apk.size;
  deps.metrics?.bytesDownloaded.inc(length);
}
