/**
 * The install funnel of an APK (issue 19): each installation passes through `offered` (the push
 * hub sent it a `version` event for the APK), `downloaded` (it fetched the APK, or its heartbeat
 * reported the hash as downloaded), `installed` (it reported running the APK, or the client
 * reported the installer's success) and `failed` (the client reported the installer's failure).
 * Each is counted once per (APK, installation, stage), however many times it is reported.
 * Pure: what one report means for the funnel, and how the stored marks make per-installation rows.
 */
import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import type { DownloadReport } from '../devices/install-outcome';

export const FUNNEL_STAGES = ['offered', 'downloaded', 'installed', 'failed'] as const;
export type FunnelStage = (typeof FUNNEL_STAGES)[number];

/** One installation reached one stage of one APK (by MD5). */
export interface FunnelMark {
  /** Hex id of the installation (shared/devices/installations.ts derives it). */
  readonly installation: string;
  readonly md5: string;
  readonly stage: FunnelStage;
  readonly at: Date;
  /** `failed`: the OS's status code and message, when the client sent them. */
  readonly osStatus?: number | null;
  readonly message?: string | null;
}

/**
 * The id of a mark: derived, so a repeated report inserts a duplicate `_id` and is refused by the
 * database itself, from any process, at once (no read-modify-write).
 */
export function markId(installation: string, md5: string, stage: FunnelStage): ObjectId {
  const digest = createHash('sha256').update(`${installation}\n${md5}\n${stage}`).digest();
  return new ObjectId(digest.subarray(0, 12));
}

/** What a registration or heartbeat says about the funnel. */
export interface Reported {
  readonly installedMd5?: string | null;
  readonly lastDownloadedMd5?: string | null;
  readonly outcome?: {
    readonly md5: string;
    readonly status: 'success' | 'failure';
    readonly osStatus: number | null;
    readonly message: string | null;
    /** How the APK came (delta or full), when the client says. */
    readonly download?: DownloadReport | null;
  } | null;
}

/** The marks a device's report makes (a success outcome counts as installed). */
export function marksOfReport(installation: string, r: Reported, at: Date): FunnelMark[] {
  const marks: FunnelMark[] = [];
  const mark = (md5: string, stage: FunnelStage, extra: Partial<FunnelMark> = {}) =>
    marks.push({ installation, md5, stage, at, ...extra });
  if (r.lastDownloadedMd5) mark(r.lastDownloadedMd5, 'downloaded');
  if (r.installedMd5) mark(r.installedMd5, 'installed');
  const o = r.outcome;
  if (o?.status === 'success' && o.md5 !== r.installedMd5) mark(o.md5, 'installed');
  if (o?.status === 'failure') mark(o.md5, 'failed', { osStatus: o.osStatus, message: o.message });
  return marks;
}

export interface FunnelRow {
  readonly installation: string;
  readonly offeredAt: Date | null;
  readonly downloadedAt: Date | null;
  readonly installedAt: Date | null;
  readonly failedAt: Date | null;
  readonly failure: { readonly osStatus: number | null; readonly message: string | null } | null;
}

/**
 * Rows of the first `limit` installations among marks sorted by installation: an installation has
 * at most one mark per stage, so `limit * 4 + 1` marks hold every mark of the first `limit`
 * installations and tell whether more follow.
 */
export function rowsOfMarks(
  marks: readonly FunnelMark[],
  limit: number,
): { rows: FunnelRow[]; more: boolean } {
  const rows = new Map<string, { -readonly [K in keyof FunnelRow]: FunnelRow[K] }>();
  for (const m of marks) {
    let row = rows.get(m.installation);
    if (!row) {
      if (rows.size === limit) return { rows: [...rows.values()], more: true };
      row = {
        installation: m.installation,
        offeredAt: null,
        downloadedAt: null,
        installedAt: null,
        failedAt: null,
        failure: null,
      };
      rows.set(m.installation, row);
    }
    row[`${m.stage}At`] = m.at;
    if (m.stage === 'failed')
      row.failure = { osStatus: m.osStatus ?? null, message: m.message ?? null };
  }
  return { rows: [...rows.values()], more: false };
}

export const MARKS_PER_INSTALLATION = FUNNEL_STAGES.length;
