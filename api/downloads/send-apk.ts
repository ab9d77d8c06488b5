/**
 * Sends a stored APK with the headers real download clients check: as slices of its plaintext held
 * in memory (plaintext-memory.ts: decrypted once, every tag checked first), or, for an APK larger
 * than that memory, streamed and decrypted segment by segment, reading only the ciphertext
 * segments a range needs. A segment that fails authentication ends the response with an error:
 * the client sees a broken download, never forged bytes.
 */
import type { Request, Response } from 'express';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApkDoc } from '../../shared/catalog/types';
import { unwrapDataKey } from '../../shared/crypto/data-keys';
import type { KeyRing } from '../../shared/crypto/keys';
import {
  SEGMENT_SIZE,
  SegmentAuthError,
  SegmentDecryptor,
  segmentCount,
  segmentsForRange,
} from '../../shared/crypto/segmented-aead';
import type { BlobStore } from '../../shared/storage/blob-store';
import type { Logger } from '../../shared/log';
import { sendText } from '../text-reply';
import { attachmentDisposition } from './content-disposition';
import { decideRange, type RangeDecision } from './range';
import type { PlaintextMemory } from './plaintext-memory';
import { coerceError } from '../../shared/errors';

export const APK_CONTENT_TYPE = 'application/vnd.android.package-archive';

/** Keeps bytes `skip .. skip+length-1` of the stream. */
class Slice extends Transform {
  private seen = 0;
  constructor(
    private readonly skip: number,
    private readonly length: number,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const from = Math.max(0, this.skip - this.seen);
    const to = Math.min(chunk.length, this.skip + this.length - this.seen);
    this.seen += chunk.length;
    if (to > from) this.push(chunk.subarray(from, to));
    done();
  }
}

export interface SendApkDeps {
  readonly blobs: BlobStore;
  readonly keys: KeyRing;
  readonly log: Logger;
  readonly metrics?: { readonly bytesDownloaded: { inc(bytes: number): void } };
  /** DOWNLOAD_MEMORY_MB: APKs decrypted once and served from memory; unset: every download decrypts. */
  readonly memory?: PlaintextMemory;
}

/** Bytes per write of a held APK: large writes, each a slice of the one Buffer (no copy). */
const WRITE_BYTES = 256 * 1024;

function* slices(bytes: Buffer, start: number, end: number): Generator<Buffer> {
  for (let at = start; at <= end; at += WRITE_BYTES) {
    yield bytes.subarray(at, Math.min(end + 1, at + WRITE_BYTES));
  }
}

/** Plaintext bytes `start..end` (inclusive) of `apk` to `res`: from memory, else decrypted. */
async function sendBytes(
  res: Response,
  apk: ApkDoc,
  start: number,
  end: number,
  deps: SendApkDeps,
): Promise<void> {
  const held = await deps.memory?.plaintext(apk);
  if (held) {
    await pipeline(Readable.from(slices(held, start, end), { objectMode: false }), res);
    return;
  }
  const size = apk.size;
  const segments = segmentsForRange(start, end, size);
  const key = unwrapDataKey(deps.keys, apk.wrappedKey, apk.blobId);
  const decrypt = new SegmentDecryptor(key, Buffer.from(apk.noncePrefix, 'base64'), {
    firstSegment: segments.first,
    finalIsLast: segments.last === segmentCount(size) - 1,
  });
  // A damaged local copy is dropped as the failure happens: this listener runs before the
  // pipeline ends the reply, so a client that retries at once is not served the same copy
  // (the cache makes later reads wait for the drop).
  decrypt.once('error', (err) => {
    if (err instanceof SegmentAuthError) void deps.blobs.discardCopy?.(apk.blobId).catch(() => {});
  });
  await pipeline(
    deps.blobs.openRange(apk.blobId, segments.cipherStart, segments.cipherEnd),
    decrypt,
    new Slice(start - segments.first * SEGMENT_SIZE, end - start + 1),
    res,
  );
}

const etagOf = (apk: ApkDoc) => `"${apk.sha256}"`;

/**
 * What the reply to `req` will hold of `apk`: its Range, unless an If-Range other than the ETag
 * voids it (then the whole file). Pure.
 */
export function requestedRange(req: Request, apk: ApkDoc): RangeDecision {
  const ifRange = req.header('if-range');
  const rangeHeader = ifRange && ifRange !== etagOf(apk) ? undefined : req.header('range');
  return decideRange(rangeHeader, apk.size);
}

export interface SentApk {
  /** Body bytes sent. */
  readonly bytes: number;
  /**
   * The reply handed the file's last byte to the connection (or the client already had it all: a
   * range starting at the size). False for HEAD, 416 and aborted transfers.
   */
  readonly reachedEnd: boolean;
}

/** What the body is called: an APK unless told otherwise (a delta patch, api/downloads/delta.ts). */
export interface SentAs {
  readonly contentType: string;
  readonly filename: string;
}

/** Sends `apk` as `req` asks (Range, If-Range, HEAD). */
export async function sendApk(
  req: Request,
  res: Response,
  apk: ApkDoc,
  deps: SendApkDeps,
  as: SentAs = { contentType: APK_CONTENT_TYPE, filename: `${apk.package}.apk` },
): Promise<SentApk> {
  const size = apk.size;
  const etag = etagOf(apk);
  const range = requestedRange(req, apk);
  res.setHeader('Content-Type', as.contentType);
  res.setHeader('Content-Disposition', attachmentDisposition(as.filename));
  res.setHeader('ETag', etag);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Cache-Control', 'private, no-transform');
  if (range.kind === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${size}`);
    sendText(res, 416, 'Requested range not satisfiable');
    return { bytes: 0, reachedEnd: false };
  }
  if (range.kind === 'empty') {
    res.status(200).setHeader('Content-Length', '0');
    res.end();
    return { bytes: 0, reachedEnd: req.method !== 'HEAD' };
  }
  const start = range.kind === 'partial' ? range.start : 0;
  const end = range.kind === 'partial' ? range.end : size - 1;
  const length = end - start + 1;
  res.status(range.kind === 'partial' ? 206 : 200);
  if (range.kind === 'partial') res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
  res.setHeader('Content-Length', String(length));
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return { bytes: 0, reachedEnd: req.method !== 'HEAD' };
  }
  try {
    await sendBytes(res, apk, start, end, deps);
  } catch (err) {
    deps.log.error({ err: coerceError(err), apkId: apk._id.toHexString() }, 'download aborted');
    // A damaged local copy was dropped as it failed (sendBytes): the next download reads the
    // database and copies again.
    res.destroy();
    return { bytes: 0, reachedEnd: false };
  }
  deps.metrics?.bytesDownloaded.inc(length);
  return { bytes: length, reachedEnd: end === size - 1 };
}
