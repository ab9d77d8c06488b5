/**
 * One attempt at an update as a delta patch (docs/delta-updates.md): the patch from the
 * installed APK's MD5 to the notice's SHA-256 is fetched from `/download/delta` (same origin as
 * the notice's `url`), inflated and applied as it arrives into the update's file (ARDELTA1 or,
 * when the server names it, ARDELTA2), then checked against the signed notice (size, MD5,
 * SHA-256). A patch still being made (`503` with Retry-After) is asked for again after
 * min(Retry-After, 30 s), for at most 120 s of waiting in all. Any failure deletes the file and
 * says why in the contract's words, so the caller falls back to the full APK and reports it.
 */
import { applyPatch, type ApplyTarget } from '../protocol/delta/apply-patch';
import { applyPatch2 } from '../protocol/delta/apply-patch2';
import { DeltaPatchError } from '../protocol/delta/format';
import type { VersionEvent } from '../protocol/signed-notice';
import { retryAfterMs } from './backoff';
import { verifyFile, type DownloadDeps } from './download';
import { coerceError } from './errors';
import type { Clock, DeltaScratch, Inflater, InstalledApk, OpenResponse } from './ports';

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
  readonly clock: Clock;
  readonly deltaScratch?: () => DeltaScratch;
}

/** The contract's longest fallback message. */
const MAX_MESSAGE = 300;
/** "Not ready yet": the longest wait between two asks, and the most waiting for one update. */
export const NOT_READY_WAIT_MS = 30_000;
export const NOT_READY_BUDGET_MS = 120_000;

/** The patch formats this client applies, best first: ARDELTA2 needs a scratch file. */
const formatsOf = (deps: DeltaDeps) => (deps.deltaScratch ? '2,1' : '1');

export function deltaUrl(
  event: VersionEvent,
  apiKey: string,
  deviceId: string,
  from: string,
  formats = '1',
) {
  const url = new URL(event.url);
  url.pathname = '/download/delta';
  const pkg = url.searchParams.get('package');
  url.search = '';
  if (pkg !== null) url.searchParams.set('package', pkg);
  url.searchParams.set('api_key', apiKey);
  url.searchParams.set('deviceId', deviceId);
  url.searchParams.set('from', from);
  url.searchParams.set('to', event.sha256);
  url.searchParams.set('formats', formats);
  return url.toString();
}

/**
 * Applies the patch in the format the server named (`X-Apkrelay-Delta-Format`; absent = 1, as
 * from a server before ARDELTA2); an ARDELTA2's dfOld goes to a scratch file, always deleted.
 */
async function applyNamed(
  deps: DeltaDeps,
  format: string | undefined,
  patch: AsyncIterable<Uint8Array>,
  target: ApplyTarget,
): Promise<void> {
  if (format === undefined || format === '1') {
    await applyPatch(patch, deps.installed, target);
    return;
  }
  if (format !== '2' || !deps.deltaScratch) {
    throw new DeltaPatchError('magic', `patch format ${format} is not one this client applies`);
  }
  const scratch = deps.deltaScratch();
  try {
    await applyPatch2(patch, deps.installed, scratch, target);
  } finally {
    await scratch.discard();
  }
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

type Asked = { readonly res: OpenResponse } | { readonly reason: FallbackReason; message: string };

/**
 * Asks for the patch until it is not `503` with Retry-After: waits min(Retry-After, 30 s), at
 * least a second, and gives up (`no-patch`) once 120 s of waiting have passed.
 */
async function askReady(deps: DeltaDeps, url: string): Promise<Asked> {
  for (let waitedMs = 0; ;) {
    let res;
    try {
      res = await deps.transport.open({ method: 'GET', url, headers: {} });
    } catch (err) {
      return { reason: 'network', message: coerceError(err).message };
    }
    if (res.status !== 503) return { res };
    res.close();
    const after = retryAfterMs(res.headers['retry-after'], deps.clock.now());
    if (after === null) return { reason: 'network', message: 'HTTP 503' };
    if (waitedMs >= NOT_READY_BUDGET_MS) {
      return { reason: 'no-patch', message: `not ready after ${waitedMs / 1000} s` };
    }
    const waitMs = Math.max(1_000, Math.min(after, NOT_READY_WAIT_MS));
    await new Promise<void>((resolve) => deps.clock.setTimeout(resolve, waitMs));
    waitedMs += waitMs;
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
  const { apiKey, deviceId } = credentials;
  const url = deltaUrl(event, apiKey, deviceId, deps.installed.md5, formatsOf(deps));
  const asked = await askReady(deps, url);
  if (!('res' in asked)) return fallback(asked.reason, asked.message);
  const { res } = asked;
  try {
    if (res.status === 404) return fallback('no-patch', 'HTTP 404');
    if (res.status !== 200) return fallback('network', `HTTP ${res.status}`);
    const patch = deps.inflater.inflate(counted(res.body, seen));
    const write = (chunk: Uint8Array) => deps.storage.append(file, chunk);
    await applyNamed(deps, res.headers['x-apkrelay-delta-format'], patch, { write });
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
