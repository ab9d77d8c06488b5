/**
 * The PushLink-compatible upload, `POST /apps/api_upload`: plain-text replies, the key checked
 * before anything of the file is stored, and the verdict awaited unless the client asked to be
 * answered at once (`async=true` or `Prefer: respond-async`).
 */
import type { Request, Response } from 'express';
import type { Authenticated } from '../../shared/accounts/service';
import type { Account } from '../../shared/accounts/types';
import { AppError, ERRORS } from '../../shared/errors';
import { legacyReply, LEGACY_TEXT } from '../../shared/uploads/verdicts';
import { apiKeyPrincipal, bearerKey, isAuthRateLimited, isKeyRefused } from '../auth';
import { auditUpload } from '../audit-context';
import type { ApiDeps } from '../deps';
import { isDependencyOutage } from '../http-errors';
import { sendText } from '../text-reply';
import {
  receiveUpload,
  uploadProgressBounds,
  type Received,
  type ReceivedFile,
} from './receive-upload';
import { PACKAGE_PATTERN, statusUrl, takeSlot } from './upload-http';

export type Refusal = Extract<Received, { ok: false }>;

function refusalText(
  r: Exclude<Refusal, { reason: 'refused' }>,
  maxApkBytes: number,
): [number, string] {
  switch (r.reason) {
    case 'too-large':
      return [
        413,
        legacyReply({ status: 'rejected', code: 'APK_TOO_LARGE', message: r.detail }, maxApkBytes)
          .text,
      ];
    case 'unavailable':
      return [503, 'deploy fails, storage unavailable; retry later'];
    case 'spool-full':
      return [503, SPOOL_FULL_TEXT];
    case 'too-slow':
      return [408, `deploy fails, ${r.detail}; retry`];
    case 'not-multipart':
      return [400, 'deploy fails, expected a multipart/form-data upload with an apk file'];
    default:
      return [400, `deploy fails, ${r.detail}`];
  }
}

/** The legacy reply to a refused key (wrong, missing, or past the failed-auth throttle). */
function keyRefusalText(error: unknown): [number, string] {
  if (isAuthRateLimited(error))
    return [429, 'deploy fails, too many failed API key attempts; retry later'];
  if (isKeyRefused(error)) return [403, `deploy fails, ${error.message}`];
  if (!(error instanceof AppError && error.code === 'UNAUTHENTICATED')) throw error;
  return [401, LEGACY_TEXT.INVALID_API_KEY];
}

const SPOOL_FULL_TEXT =
  'deploy fails, too many uploads are waiting for their apiKey at once; retry later, or send apiKey before the apk file';

const SEVERAL_APPS =
  'this CI token names several apps, and the form names none: use a token of one app, or POST /api/v2/apps/{package}/apks';

function wantsAsync(req: Request, fields: ReadonlyMap<string, string>): boolean {
  return fields.get('async') === 'true' || /\brespond-async\b/i.test(req.header('prefer') ?? '');
}

export async function legacyUpload(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const slot = takeSlot(deps, req, res);
  if (slot === 'address-busy') {
    sendText(res, 429, 'deploy fails, too many uploads at once from this address; retry later');
    return;
  }
  if (slot === 'busy') {
    sendText(res, 503, 'deploy fails, too many uploads at once; retry later');
    return;
  }
  try {
    const form = await receiveLegacyForm(deps, req, res);
    if (!form) return;
    slot(); // the body is in: waiting for the verdict holds no intake
    await submitLegacyUpload(deps, req, res, form);
  } finally {
    slot();
  }
}

interface LegacyForm {
  readonly account: Account;
  /** The package the APK must be: a CI token's app, else the form's `package` field, or null. */
  readonly expectedPackage: string | null;
  /** The key named the package (a CI token), not the form. */
  readonly byKey: boolean;
  readonly fields: ReadonlyMap<string, string>;
  readonly file: ReceivedFile;
}

/**
 * The form of a legacy upload whose key was accepted, or null once the refusal is sent. The key
 * is checked before anything of the file is stored: from the Authorization header before the body
 * is read, else from the form's apiKey field as soon as it is parsed; a file that came before it
 * is held outside the store meanwhile (pre-auth-hold.ts) and judged when the key arrives.
 */
async function receiveLegacyForm(
  deps: ApiDeps,
  req: Request,
  res: Response,
): Promise<LegacyForm | null> {
  const { maxApkBytes } = deps.limits;
  const auth: { found: Authenticated | null } = { found: null };
  const authenticate = async (presented: string | undefined) => {
    auth.found = await apiKeyPrincipal(deps, req, res, presented, {
      countMissing: true,
      need: { scope: 'upload' },
    });
    if (!auth.found) throw new AppError('UNAUTHENTICATED');
    // The form names no package: a CI token's upload must be of its one app (docs/keys.md).
    const { apps } = auth.found.principal;
    if (apps !== 'all' && apps.length !== 1)
      throw new AppError('KEY_APP_REFUSED', { message: SEVERAL_APPS });
  };
  const header = bearerKey(req);
  if (header !== undefined) {
    try {
      await authenticate(header);
    } catch (err) {
      sendText(res, ...keyRefusalText(err));
      return null;
    }
  }
  const received = await receiveUpload(req, deps.blobs, {
    maxApkBytes,
    progress: uploadProgressBounds(deps.limits.uploads),
    ...(header === undefined
      ? {
          authenticate: {
            check: authenticate,
            hold: {
              memoryBytes: deps.limits.uploads.preAuthBytes,
              spoolDir: deps.uploadSpool.dir,
              budget: deps.uploadSpool.budget,
            },
          },
        }
      : {}),
  });
  if (!received.ok) {
    if (received.reason === 'refused') {
      sendText(res, ...keyRefusalText(received.error));
      return null;
    }
    const [status, text] = refusalText(received, maxApkBytes);
    if (status === 503) res.setHeader('Retry-After', '5');
    sendText(res, status, text);
    return null;
  }
  const { fields, file } = received;
  const { found } = auth;
  if (!found) throw new Error('receiveUpload accepted a form whose key was not checked');
  res.locals.principal = found.principal; // the audit log's actor (api/audit-context.ts)
  if (!file) {
    sendText(res, 422, LEGACY_TEXT.APK_INVALID);
    return null;
  }
  const named = namedPackage(fields);
  if (named === undefined) {
    await deps.blobs.delete(file.uploadId);
    sendText(res, 400, LEGACY_TEXT.PACKAGE_FIELD_INVALID);
    return null;
  }
  const { apps } = found.principal;
  return {
    account: found.account,
    expectedPackage: apps === 'all' ? named : apps[0]!,
    byKey: apps !== 'all',
    fields,
    file,
  };
}

/**
 * The form's optional `package` field (sent by `apkrelay upload`, not by PushLink clients): the
 * package the APK must be, as the JSON route's path names it; null when absent or empty,
 * undefined when it is not a package name. A CI token's own app takes precedence.
 */
function namedPackage(fields: ReadonlyMap<string, string>): string | null | undefined {
  const value = fields.get('package');
  if (value === undefined || value === '') return null;
  return PACKAGE_PATTERN.test(value) ? value : undefined;
}

/** Queues a received legacy upload and answers its verdict (or 202 when asked, or on timeout). */
async function submitLegacyUpload(
  deps: ApiDeps,
  req: Request,
  res: Response,
  { account, expectedPackage, byKey, fields, file }: LegacyForm,
): Promise<void> {
  let uploadId: string;
  const current = fields.get('current') === 'true';
  try {
    uploadId = await deps.ingest.submit(account.id, file, {
      current,
      whatsnew: fields.get('whatsnew') ?? null,
      expectedPackage,
    });
  } catch (err) {
    if (!isDependencyOutage(err)) throw err;
    res.setHeader('Retry-After', '5');
    sendText(res, 503, 'deploy fails, service unavailable; retry later');
    return;
  }
  await auditUpload(deps, req, res, account, uploadId, { current, expectedPackage });
  if (wantsAsync(req, fields)) {
    res.status(202).json({ jobId: uploadId, statusUrl: statusUrl(deps, uploadId) });
    return;
  }
  const verdict = await deps.ingest.waitForVerdict(uploadId, deps.limits.uploadWaitTimeoutMs);
  if (!verdict) {
    sendText(res, 202, `deploy queued, still processing; status: ${statusUrl(deps, uploadId)}`);
    return;
  }
  // A CI token's upload of another app's APK: its key is refused for that app (KEY_APP_REFUSED);
  // an APK of another package than the form's field names: that mismatch, said.
  if (verdict.status === 'rejected' && verdict.code === 'APK_PACKAGE_MISMATCH') {
    const text = byKey ? `${ERRORS.KEY_APP_REFUSED.message} ${verdict.message}` : verdict.message;
    sendText(res, byKey ? 403 : 422, `deploy fails, ${text}`);
    return;
  }
  const reply = legacyReply(verdict, deps.limits.maxApkBytes);
  sendText(res, reply.status, reply.text);
}
