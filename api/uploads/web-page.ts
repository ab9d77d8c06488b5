/** The web upload form: receives the APK, hands it to the ingest, and shows its verdict. */
import type { Request, Response } from 'express';
import { auditUpload } from '../audit-context';
import type { ApiDeps } from '../deps';
import { receiveUpload, uploadProgressBounds } from './receive-upload';
import { sendPage, viewerOfSession, type PageHandler } from '../apps/web-pages';
import { sameToken } from '../web/sessions';
import { messagePage, type Viewer } from '../web/views';
import { catalogCollections } from '../../shared/catalog/collections';

type Received = Extract<Awaited<ReturnType<typeof receiveUpload>>, { ok: true }>;

/** The received file when the form is whole and its CSRF token right; else the refusal is sent. */
async function acceptedFile(
  deps: ApiDeps,
  req: Request,
  res: Response,
  viewer: Viewer,
): Promise<{ file: NonNullable<Received['file']>; fields: Received['fields'] } | null> {
  const received = await receiveUpload(req, deps.blobs, {
    maxApkBytes: deps.limits.maxApkBytes,
    progress: uploadProgressBounds(deps.limits.uploads),
  });
  if (!received.ok) {
    sendPage(
      res,
      received.reason === 'too-large' ? 413 : received.reason === 'too-slow' ? 408 : 400,
      messagePage(viewer, 'Upload refused', received.detail),
    );
    return null;
  }
  const { file, fields } = received;
  if (!sameToken(fields.get('_csrf'), viewer.csrf) || !file) {
    if (file) await deps.blobs.delete(file.uploadId);
    const status = file ? 403 : 400;
    sendPage(
      res,
      status,
      messagePage(
        viewer,
        'Upload refused',
        file ? 'Missing or wrong CSRF token.' : 'Choose an APK file.',
      ),
    );
    return null;
  }
  return { file, fields };
}

/** Upload form of the apps list (any package) or of an app page (that package only). */
export function uploadApk(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const viewer = await viewerOfSession(deps, res);
    const expectedPackage = req.params.package ? String(req.params.package) : null;
    const accepted = await acceptedFile(deps, req, res, viewer);
    if (!accepted) return;
    const { file, fields } = accepted;
    const current = fields.get('current') === 'true';
    const uploadId = await deps.ingest.submit(viewer.account.id, file, {
      current,
      whatsnew: fields.get('whatsnew') || null,
      expectedPackage,
    });
    await auditUpload(deps, req, res, viewer.account, uploadId, { current, expectedPackage });
    const verdict = await deps.ingest.waitForVerdict(uploadId, deps.limits.uploadWaitTimeoutMs);
    if (!verdict) {
      sendPage(
        res,
        202,
        messagePage(viewer, 'Upload queued', 'Still processing; reload the app page shortly.'),
      );
    } else if (verdict.status === 'rejected') {
      sendPage(res, 422, messagePage(viewer, 'Upload refused', verdict.message));
    } else {
      const apk = await catalogCollections(deps.db).apks.findOne({
        uploadId,
        accountId: viewer.account.id,
      });
      res.redirect(303, apk ? `/ui/apps/${encodeURIComponent(apk.package)}` : '/ui/apps');
    }
  };
}
