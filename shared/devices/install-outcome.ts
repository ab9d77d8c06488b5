/**
 * The outcome of the last installation a device attempted (issue 17): the Android library hands
 * the verified APK to the OS installer and reports what the OS answered on its next heartbeat,
 * once. Pure validation of what the device sends; the heartbeat stores it on the installation.
 */
import { AppError } from '../errors';

export interface InstallOutcome {
  /** MD5 of the APK the device tried to install. */
  readonly md5: string;
  readonly versionCode: number;
  readonly status: 'success' | 'failure';
  /** The OS's status code (Android: PackageInstaller.STATUS_*; -1: failed before the OS answered). */
  readonly osStatus: number | null;
  /** The OS's message, as the device got it (at most MAX_MESSAGE characters). */
  readonly message: string | null;
  /** When the device saw the outcome, by its own clock (null when not sent). */
  readonly at: Date | null;
  /** How the APK came (docs/delta-updates.md); null from clients that do not say. */
  readonly download: DownloadReport | null;
}

export const FALLBACK_REASONS = [
  'no-patch',
  'patch-failed',
  'no-space',
  'mismatch',
  'network',
] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/** `lastInstall.download`: a patch or the full APK, the bytes received, why a patch was not used. */
export interface DownloadReport {
  readonly via: 'delta' | 'full';
  /** Bytes received over the network for this update: every attempt, patch and full together. */
  readonly bytes: number;
  readonly fallback: { readonly reason: FallbackReason; readonly message: string } | null;
}

export const MAX_FALLBACK_MESSAGE = 300;

function parseFallback(v: unknown): DownloadReport['fallback'] {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v))
    fail('download.fallback must be an object or null');
  const f = v as Record<string, unknown>;
  if (!(FALLBACK_REASONS as readonly unknown[]).includes(f.reason)) {
    fail(`download.fallback.reason must be one of ${FALLBACK_REASONS.join(', ')}`);
  }
  if (typeof f.message !== 'string' || f.message.length > MAX_FALLBACK_MESSAGE) {
    fail(
      `download.fallback.message must be a string of at most ${MAX_FALLBACK_MESSAGE} characters`,
    );
  }
  return { reason: f.reason as FallbackReason, message: f.message };
}

/** `lastInstall.download`: null when absent, else validated. */
export function parseDownloadReport(v: unknown): DownloadReport | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) fail('download must be an object');
  const d = v as Record<string, unknown>;
  if (d.via !== 'delta' && d.via !== 'full') fail('download.via must be delta or full');
  if (typeof d.bytes !== 'number' || !Number.isSafeInteger(d.bytes) || d.bytes < 0) {
    fail('download.bytes must be a non-negative integer');
  }
  const fallback = parseFallback(d.fallback);
  if (fallback && d.via !== 'full') fail('download.fallback is only for a full download');
  return { via: d.via, bytes: d.bytes, fallback };
}

export const MAX_OUTCOME_MESSAGE = 1000;
const MD5 = /^[0-9a-f]{32}$/;

function fail(message: string): never {
  throw new AppError('VALIDATION_FAILED', { message: `lastInstall.${message}` });
}

function optionalDate(v: unknown): Date | null {
  if (v === undefined || v === null) return null;
  const at = typeof v === 'string' ? new Date(v) : null;
  if (!at || Number.isNaN(at.getTime())) fail('at must be an ISO 8601 date');
  return at;
}

/** `lastInstall` of a heartbeat body: null when absent, else validated (400 when malformed). */
export function parseInstallOutcome(v: unknown): InstallOutcome | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) fail('must be an object');
  const o = v as Record<string, unknown>;
  if (typeof o.md5 !== 'string' || !MD5.test(o.md5.toLowerCase()))
    fail('md5 must be an MD5 in hex');
  if (
    typeof o.versionCode !== 'number' ||
    !Number.isSafeInteger(o.versionCode) ||
    o.versionCode < 0
  )
    fail('versionCode must be a non-negative integer');
  if (o.status !== 'success' && o.status !== 'failure') fail('status must be success or failure');
  const osStatus = o.osStatus ?? null;
  if (osStatus !== null && (typeof osStatus !== 'number' || !Number.isSafeInteger(osStatus)))
    fail('osStatus must be an integer');
  const message = o.message ?? null;
  if (message !== null && (typeof message !== 'string' || message.length > MAX_OUTCOME_MESSAGE))
    fail(`message must be a string of at most ${MAX_OUTCOME_MESSAGE} characters`);
  return {
    md5: o.md5.toLowerCase(),
    versionCode: o.versionCode,
    status: o.status,
    osStatus: osStatus,
    message: message,
    at: optionalDate(o.at),
    download: parseDownloadReport(o.download),
  };
}

/** As the owner's installation list shows it. */
export function presentInstallOutcome(o: InstallOutcome & { readonly reportedAt: Date }) {
  return {
    md5: o.md5,
    versionCode: o.versionCode,
    status: o.status,
    osStatus: o.osStatus,
    message: o.message,
    at: o.at?.toISOString() ?? null,
    download: o.download ?? null,
    reportedAt: o.reportedAt.toISOString(),
  };
}
