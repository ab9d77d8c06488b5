/**
 * One attempt at an update as a delta patch (docs/delta-updates.md): the patch from the
 * installed APK's MD5 to the notice's SHA-256 is fetched from `/download/delta` (same origin as
 * the notice's `url`), inflated and applied as it arrives into the update's file, then checked
 * against the signed notice (size, MD5, SHA-256). Any failure deletes the file and says why in
 * the contract's words, so the caller falls back to the full APK and reports it.
 */
import { applyPatch } from '../protocol/delta/apply-patch';
import { DeltaPatchError } from '../protocol/delta/format';
import type { VersionEvent } from '../protocol/signed-notice';
import { verifyFile, type DownloadDeps } from './download';
import { coerceError } from './errors';
import type { Inflater, InstalledApk } from './ports';

export type FallbackReason = 'no-patch' | 'patch-failed' | 'no-space' | 'mismatch' | 'network';

export type DeltaResult =
  | { readonly kind: 'verified'; readonly bytes: number }
  | {
      readonly kind: 'fallback';
      readonly bytes: number;
      readonly reason: FallbackReason;
      readonly message: string;
    };

export interface DeltaDeps extends DownloadDeps {
  readonly installed: InstalledApk;
  readonly inflater: Inflater;
}

/** The contract's longest fallback message. */
const MAX_MESSAGE = 300;

export function deltaUrl(event: VersionEvent, apiKey: string, deviceId: string, from: string) {
  const url = new URL(event.url);
  url.pathname = '/download/delta';
  const pkg = url.searchParams.get('package');
  url.search = '';
  if (pkg !== null) url.searchParams.set('package', pkg);
  url.searchParams.set('api_key', apiKey);
  url.searchParams.set('deviceId', deviceId);
  url.searchParams.set('from', from);
  url.searchParams.set('to', event.sha256);
  return url.toString();
}

function reasonOf(err: unknown): FallbackReason {
  if (err instanceof DeltaPatchError) return 'patch-failed';
  return (err as { code?: unknown } | null)?.code === 'ENOSPC' ? 'no-space' : 'network';
}

/** Counts the bytes of a body as they arrive. */
async function* counted(body: AsyncIterable<Uint8Array>, seen: { bytes: number }) {
  for await (const chunk of body) {
    seen.bytes += chunk.byteLength;
    yield chunk;
  }
}

export async function deltaOnce(
  deps: DeltaDeps,
  event: VersionEvent,
  file: string,
  credentials: { readonly apiKey: string; readonly deviceId: string },
): Promise<DeltaResult> {
  const seen = { bytes: 0 };
  const fallback = (reason: FallbackReason, message: string): DeltaResult => ({
    kind: 'fallback',
    bytes: seen.bytes,
    reason,
    message: message.slice(0, MAX_MESSAGE),
  });
  await deps.storage.removeFile(file);
  const url = deltaUrl(event, credentials.apiKey, credentials.deviceId, deps.installed.md5);
  let res;
  try {
    res = await deps.transport.open({ method: 'GET', url, headers: {} });
  } catch (err) {
    return fallback('network', coerceError(err).message);
  }
  try {
    if (res.status === 404) return fallback('no-patch', 'HTTP 404');
    if (res.status !== 200) return fallback('network', `HTTP ${res.status}`);
    const patch = deps.inflater.inflate(counted(res.body, seen));
    const write = (chunk: Uint8Array) => deps.storage.append(file, chunk);
    await applyPatch(patch, deps.installed, { write });
  } catch (err) {
    await deps.storage.removeFile(file);
    return fallback(reasonOf(err), coerceError(err).message);
  } finally {
    res.close();
  }
  const check = await verifyFile(deps, file, event);
  if (check.kind !== 'verified') return fallback('mismatch', check.reason);
  return { kind: 'verified', bytes: seen.bytes };
}
