/**
 * Reads a request body into memory up to a limit, without a body-parser (the form route needs
 * its own reply when the body is too large). Past the limit the rest is discarded, not buffered,
 * and the connection is closed once the reply is out: an endless body cannot hold it.
 */
import type { Request } from 'express';
import { closeAfterReply } from '../close-after-reply';

export type BodyRead =
  | { readonly ok: true; readonly body: Buffer }
  | { readonly ok: false; readonly reason: 'too-large' | 'aborted' };

export function readBody(req: Request, limit: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.header('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > limit) {
      closeAfterReply(req);
      resolve({ ok: false, reason: 'too-large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const onData = (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        req.off('data', onData);
        closeAfterReply(req);
        resolve({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (!over) resolve({ ok: true, body: Buffer.concat(chunks, size) });
    });
    req.once('error', () => resolve({ ok: false, reason: 'aborted' }));
    req.once('aborted', () => resolve({ ok: false, reason: 'aborted' }));
  });
}
