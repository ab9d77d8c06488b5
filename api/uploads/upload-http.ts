/** What both upload routes share over HTTP: the upload slot of a request and the status URL. */
import type { Request, Response } from 'express';
import { clientAddress } from '../auth';
import type { ApiDeps } from '../deps';
import { UPLOAD_SLOT_RETRY_SECONDS, type ReleaseSlot } from './upload-slots';

export function statusUrl(deps: ApiDeps, uploadId: string): string {
  return `${deps.publicUrls.base}/api/v2/uploads/${uploadId}`;
}

/**
 * Takes an upload slot for this client, given back once the body is received (or the reply is
 * out), or the bound that refused it (Retry-After set): the caller replies 429 or 503.
 */
export function takeSlot(
  deps: ApiDeps,
  req: Request,
  res: Response,
): ReleaseSlot | 'address-busy' | 'busy' {
  const slot = deps.uploadSlots.acquire(clientAddress(req));
  if (typeof slot === 'string') res.setHeader('Retry-After', String(UPLOAD_SLOT_RETRY_SECONDS));
  else res.once('close', slot);
  return slot;
}
