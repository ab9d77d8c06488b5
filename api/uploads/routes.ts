/**
 * The upload routes: the PushLink-compatible `POST /apps/api_upload` (api/uploads/legacy-upload.ts:
 * plain-text replies, waits for the verdict unless asked to answer at once), the JSON
 * `POST /api/v2/apps/{package}/apks` (always asynchronous) and `GET /api/v2/uploads/{jobId}`.
 */
import type { Request, Response } from 'express';
import { presentApk } from '../../shared/catalog/present';
import { AppError } from '../../shared/errors';
import { LEGACY_TEXT } from '../../shared/uploads/verdicts';
import type { Principal } from '../../shared/accounts/principal';
import type { ApkDoc, UploadDoc } from '../../shared/catalog/types';
import { isUploadId } from '../../shared/upload-id';
import { appNeed, bearerAuth, currentAccount, currentPrincipal } from '../auth';
import { auditUpload } from '../audit-context';
import type { ApiDeps } from '../deps';
import { legacyUploadContract, uploadApkContract, uploadStatusContract } from './contracts';
import type { Route } from '../route-table';
import { legacyUpload, type Refusal } from './legacy-upload';
import { receiveUpload, uploadProgressBounds } from './receive-upload';
import { PACKAGE_PATTERN, statusUrl, takeSlot } from './upload-http';
import { catalogCollections } from '../../shared/catalog/collections';

/** The error a refused JSON upload answers. */
function refusalError(refusal: Refusal): unknown {
  switch (refusal.reason) {
    case 'refused':
      return refusal.error;
    case 'too-slow':
      return new AppError('UPLOAD_TOO_SLOW', { message: refusal.detail });
    case 'too-large':
      return new AppError('APK_TOO_LARGE', { message: refusal.detail });
    case 'unavailable':
      return new AppError('DEPENDENCY_UNAVAILABLE');
    case 'spool-full':
      return new AppError('UPLOAD_SPOOL_FULL');
    default:
      return new AppError('VALIDATION_FAILED', { message: refusal.detail });
  }
}

export async function jsonUpload(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const account = currentAccount(res);
  const expectedPackage = String(req.params.package);
  if (!PACKAGE_PATTERN.test(expectedPackage)) {
    throw new AppError('VALIDATION_FAILED', { message: 'the path must name an Android package' });
  }
  const slot = takeSlot(deps, req, res);
  if (slot === 'address-busy') throw new AppError('UPLOADS_PER_ADDRESS_BUSY');
  if (slot === 'busy') throw new AppError('UPLOADS_BUSY');
  const received = await receiveUpload(req, deps.blobs, {
    maxApkBytes: deps.limits.maxApkBytes,
    progress: uploadProgressBounds(deps.limits.uploads),
  }).finally(slot);
  if (!received.ok) throw refusalError(received);
  if (!received.file)
    throw new AppError('VALIDATION_FAILED', { message: 'the form must carry an apk file' });
  const current = received.fields.get('current') === 'true';
  const uploadId = await deps.ingest.submit(account.id, received.file, {
    current,
    whatsnew: received.fields.get('whatsnew') ?? null,
    expectedPackage,
  });
  await auditUpload(deps, req, res, account, uploadId, { current, expectedPackage });
  res.status(202).json({ jobId: uploadId, statusUrl: statusUrl(deps, uploadId) });
}

/**
 * Whether a key limited to some apps (a CI token) sees an upload: one for its apps (the package
 * the upload had to be of, or, for an upload that named none, the accepted APK's). Anything else
 * looks missing, as another account's upload does.
 */
function uploadVisible(principal: Principal, upload: UploadDoc, apk: ApkDoc | null): boolean {
  if (principal.apps === 'all') return true;
  const pkg = upload.package ?? apk?.package ?? null;
  return pkg !== null && principal.apps.includes(pkg);
}

export async function uploadStatus(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const account = currentAccount(res);
  const jobId = String(req.params.jobId);
  const upload = isUploadId(jobId) ? await deps.ingest.find(account.id, jobId) : null;
  const verdict = upload?.verdict ?? null;
  const apk =
    verdict?.status === 'accepted'
      ? await catalogCollections(deps.db).apks.findOne({ uploadId: jobId })
      : null;
  if (!upload || !uploadVisible(currentPrincipal(res), upload, apk)) {
    throw new AppError('NOT_FOUND', { message: 'no such upload' });
  }
  res.json({
    jobId,
    status: upload.status,
    verdict:
      verdict === null
        ? null
        : verdict.status === 'accepted'
          ? { code: 'ACCEPTED', message: LEGACY_TEXT.ACCEPTED }
          : { code: verdict.code, message: verdict.message },
    apk: apk ? presentApk(apk) : null,
  });
}

export function uploadRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'post',
      path: '/apps/api_upload',
      hosts: ['admin'],
      access: 'apiKey',
      contract: legacyUploadContract,
      handlers: [(req, res) => legacyUpload(deps, req, res)],
    },
    {
      method: 'post',
      path: '/api/v2/apps/:package/apks',
      hosts: ['admin'],
      access: 'apiKey',
      contract: uploadApkContract,
      handlers: [
        bearerAuth(deps, { countMissing: true, need: appNeed('upload') }),
        (req, res) => jsonUpload(deps, req, res),
      ],
    },
    {
      method: 'get',
      path: '/api/v2/uploads/:jobId',
      hosts: ['admin'],
      access: 'apiKey',
      contract: uploadStatusContract,
      // CI tokens poll their uploads too (job ids are random); device keys may not.
      handlers: [
        bearerAuth(deps, { need: { scope: 'upload' } }),
        (req, res) => uploadStatus(deps, req, res),
      ],
    },
  ];
}
