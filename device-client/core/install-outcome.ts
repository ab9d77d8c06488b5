/**
 * The outcome of the last installation this device attempted, kept in storage until a heartbeat
 * carrying it is accepted, as the Android library does (docs/push.md, "Heartbeat"): the server
 * counts it in the APK's install funnel (docs/funnel.md). `lastInstall` is `{md5, versionCode,
 * status: success|failure, osStatus, message, at}`; the next outcome replaces it.
 */
import type { FallbackReason } from './delta-download';
import type { Ports } from './ports';

export interface InstallOutcome {
  readonly md5: string;
  readonly versionCode: number;
  readonly status: 'success' | 'failure';
  /** The OS's status code (Android: PackageInstaller.STATUS_*); -1: failed before the OS answered. */
  readonly osStatus: number;
  readonly message: string | null;
  /** When the device saw it (ISO 8601, by the device's clock). */
  readonly at: string;
  /** How the APK came: a patch or the whole file (docs/delta-updates.md). */
  readonly download?: DownloadReport;
}

/** `lastInstall.download` of the delta contract. */
export interface DownloadReport {
  readonly via: 'delta' | 'full';
  readonly bytes: number;
  readonly fallback: { readonly reason: FallbackReason; readonly message: string } | null;
}

interface Stored extends InstallOutcome {
  readonly reported: boolean;
}

/** The server keeps at most this much of the message (shared/devices/install-outcome.ts). */
export const MAX_OUTCOME_MESSAGE = 1000;
const OUTCOME_KEY = 'install-outcome';

/** The OS's status an installer's rejection carries (`osStatus`, an integer), else -1. */
export function osStatusOf(err: unknown): number {
  const s = (err as { osStatus?: unknown } | null)?.osStatus;
  return typeof s === 'number' && Number.isSafeInteger(s) ? s : -1;
}

export class InstallOutcomes {
  constructor(private readonly ports: Pick<Ports, 'storage' | 'clock'>) {}

  private async read(): Promise<Stored | null> {
    const raw = await this.ports.storage.read(OUTCOME_KEY);
    if (!raw) return null;
    try {
      return JSON.parse(raw) as Stored;
    } catch {
      return null;
    }
  }

  /** Keeps `outcome` of the APK `apk` as not yet reported (it replaces any earlier one). */
  async record(
    apk: { readonly md5: string; readonly versionCode: number },
    status: InstallOutcome['status'],
    osStatus: number,
    message: string | null,
    download?: DownloadReport,
  ): Promise<void> {
    const stored: Stored = {
      md5: apk.md5,
      versionCode: apk.versionCode,
      status,
      osStatus,
      message: message === null ? null : message.slice(0, MAX_OUTCOME_MESSAGE),
      at: new Date(this.ports.clock.now()).toISOString(),
      ...(download ? { download } : {}),
      reported: false,
    };
    await this.ports.storage.write(OUTCOME_KEY, JSON.stringify(stored));
  }

  /** True when the kept outcome is `status` for this APK (reported or not). */
  async is(md5: string, status: InstallOutcome['status']): Promise<boolean> {
    const o = await this.read();
    return o?.md5 === md5 && o.status === status;
  }

  /** The outcome no heartbeat has carried to the server yet, or null. */
  async unreported(): Promise<InstallOutcome | null> {
    const o = await this.read();
    if (!o || o.reported) return null;
    const { reported: _reported, ...outcome } = o;
    return outcome;
  }

  /** A heartbeat carrying `sent` was accepted: it is not sent again (a newer one still is). */
  async reported(sent: InstallOutcome): Promise<void> {
    const o = await this.read();
    if (!o || o.reported || o.at !== sent.at || o.md5 !== sent.md5 || o.status !== sent.status)
      return;
    await this.ports.storage.write(OUTCOME_KEY, JSON.stringify({ ...o, reported: true }));
  }
}
