/**
 * What both upload routes share over HTTP: the upload slot of a request, the status URL, and
 * what a package name the request gives (the JSON route's path, the form's field) must look like.
 */
import type { Request, Response } from 'express';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import { UPLOAD_SLOT_RETRY_SECONDS, type ReleaseSlot } from './upload-slots';

/** An Android package name as a request may name the package an upload must be of. */
export const PACKAGE_PATTERN = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;

export function statusUrl(deps: ApiDeps, uploadId: string): string {
  return `${deps.publicUrls.base}/api/v2/uploads/${uploadId}`;
}

/**
 * Takes an upload slot for this client, or the bound that refused it (Retry-After set): the
 * caller replies 429 or 503. The caller gives the slot back once it has finished with the body
 * (stored, or refused and its bytes deleted), not when the reply is out: a slot held means work
 * of that upload may still write, so the held count (apkrelay_uploads_receiving) settles only
 * after the last write.
 */
export function takeSlot(
  deps: ApiDeps,
  req: Request,
  res: Response,
): ReleaseSlot | 'address-busy' | 'busy' {
  const slot = deps.uploadSlots.acquire(clientAddress(req));
  if (typeof slot === 'string') res.setHeader('Retry-After', String(UPLOAD_SLOT_RETRY_SECONDS));
  return slot;
}
