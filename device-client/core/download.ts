/**
 * One attempt at downloading the APK of a version event into a file, resuming what an earlier
 * attempt left (`Range: bytes=N-`, with `If-Range` on the APK's ETag so a changed file restarts
 * from zero), then checking size, MD5 and SHA-256. A file that fails the check is deleted: it is
 * never handed to the installer.
 */
import type { Crypto, Storage, Transport } from './ports';
import type { VersionEvent } from '../protocol/signed-notice';
import { coerceError } from './errors';

export type DownloadResult =
  | { readonly kind: 'verified' }
  /** The complete file does not match the event's hashes (or is longer): deleted. */
  | { readonly kind: 'tampered'; readonly reason: string }
  /** Network failure, early end or a refusal: what was written is kept for a resume. */
  | { readonly kind: 'failed'; readonly reason: string; readonly status?: number };

export interface DownloadDeps {
  readonly transport: Transport;
  readonly storage: Storage;
  readonly crypto: Crypto;
}

export function downloadUrl(event: VersionEvent, apiKey: string, deviceId: string): string {
  const url = new URL(event.url);
  url.searchParams.set('api_key', apiKey);
  url.searchParams.set('deviceId', deviceId);
  return url.toString();
}

/** Hashes a stored file: the check after every download, and before every install. */
export async function verifyFile(
  deps: DownloadDeps,
  file: string,
  event: VersionEvent,
): Promise<DownloadResult> {
  const md5 = deps.crypto.hasher('md5');
  const sha256 = deps.crypto.hasher('sha256');
  let size = 0;
  for await (const chunk of deps.storage.readFile(file)) {
    size += chunk.byteLength;
    md5.update(chunk);
    sha256.update(chunk);
  }
  const problem =
    size !== event.size
      ? `size ${size} instead of ${event.size}`
      : md5.digest() !== event.md5
        ? 'MD5 mismatch'
        : sha256.digest() !== event.sha256
          ? 'SHA-256 mismatch'
          : null;
  if (problem === null) return { kind: 'verified' };
  await deps.storage.removeFile(file);
  return { kind: 'tampered', reason: problem };
}

export async function downloadOnce(
  deps: DownloadDeps,
  event: VersionEvent,
  file: string,
  credentials: { readonly apiKey: string; readonly deviceId: string },
  cancelled: () => boolean,
  /** Told of every body chunk's size as it arrives (the bytes this update cost). */
  received?: (bytes: number) => void,
): Promise<DownloadResult> {
  let have = await deps.storage.fileSize(file);
  if (have > event.size) {
    await deps.storage.removeFile(file);
    have = 0;
  }
  if (have < event.size) {
    const headers: Record<string, string> = { accept: 'application/vnd.android.package-archive' };
    if (have > 0) {
      headers.range = `bytes=${have}-`;
      headers['if-range'] = `"${event.sha256}"`;
    }
    let res;
    try {
      res = await deps.transport.open({
        method: 'GET',
        url: downloadUrl(event, credentials.apiKey, credentials.deviceId),
        headers,
      });
    } catch (err) {
      return { kind: 'failed', reason: coerceError(err).message };
    }
    try {
      if (res.status === 200 && have > 0) {
        // The server sent the whole file (no range support, or the file changed): restart.
        await deps.storage.removeFile(file);
        have = 0;
      } else if (res.status === 206) {
        const start = /^bytes (\d+)-/.exec(res.headers['content-range'] ?? '')?.[1];
        if (Number(start) !== have) return { kind: 'failed', reason: 'unexpected Content-Range' };
      } else if (res.status !== 200) {
        return { kind: 'failed', reason: `HTTP ${res.status}`, status: res.status };
      }
      for await (const chunk of res.body) {
        if (cancelled()) return { kind: 'failed', reason: 'cancelled' };
        have += chunk.byteLength;
        received?.(chunk.byteLength);
        if (have > event.size) break; // longer than announced: the check below refuses it
        await deps.storage.append(file, chunk);
      }
    } catch (err) {
      return { kind: 'failed', reason: coerceError(err).message };
    } finally {
      res.close();
    }
    if (have < event.size) return { kind: 'failed', reason: 'the download ended early' };
    if (have > event.size) {
      await deps.storage.removeFile(file);
      return { kind: 'tampered', reason: 'longer than announced' };
    }
  }
  return verifyFile(deps, file, event);
}
