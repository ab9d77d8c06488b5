/**
 * The pending-update state machine of spec section 3: a signed `version` event for another APK
 * than the installed one → download (resumable), verify → "downloaded, not applied", then the
 * strategy notifies, pops up or (CUSTOM) broadcasts `<package>.svc.APPLY` every ~30 s while idle
 * is true. Accepting (notification click, Update button, `applyUpdate()` from custom code) hands
 * the file to the installer, only when idle is true. A signed `giveup` for the pending APK
 * withdraws everything and, with CUSTOM, broadcasts `<package>.svc.GIVEUP` once.
 */
import { backoffDelay, type BackoffPolicy } from './backoff';
import { downloadOnce, verifyFile, type DownloadResult } from './download';
import type { EventListener } from './events';
import { deltaOnce } from './delta-download';
import { osStatusOf, type DownloadReport, type InstallOutcomes } from './install-outcome';
import type { Cancel, Ports } from './ports';
import type { GiveupEvent, VersionEvent } from '../protocol/signed-notice';
import type { Strategies } from './strategies';
import { UpdatePresenter } from './update-presenter';
import { coerceError } from './errors';

export type PendingState = 'downloading' | 'downloaded' | 'installing';

interface Pending {
  readonly event: VersionEvent;
  state: PendingState;
  /** How this update is coming; set once a patch was tried or the full download began. */
  transfer?: DownloadReport;
}

export interface PendingUpdateOptions {
  readonly ports: Ports;
  readonly strategies: Strategies;
  readonly packageName: string;
  readonly appName: string;
  readonly apiKey: string;
  readonly deviceId: string;
  readonly installedMd5: string | null;
  readonly applyIntervalMs: number;
  readonly downloadBackoff: BackoffPolicy;
  /** Downloads whose file fails the check, in a row, before the update waits for a new event. */
  readonly maxTamperedDownloads: number;
  readonly idle: () => boolean;
  readonly activity: () => unknown;
  readonly emit: EventListener;
  /** Called when the downloaded hash changes (the next heartbeat carries it). */
  readonly downloaded: (md5: string) => void;
  /** Where each installation's outcome is kept for the next heartbeat. */
  readonly outcomes: InstallOutcomes;
}

const PENDING_KEY = 'pending-update';
const GAVE_UP_KEY = 'gave-up';
const GAVE_UP_KEPT = 50;

export class PendingUpdate {
  private pending: Pending | null = null;
  private gaveUp: string[] = [];
  /** Bumped to cancel the running download loop. */
  private generation = 0;
  private retryTimer: Cancel | undefined;
  /** Set by stop(): an event still being handled then starts no download afterwards. */
  private stopped = false;
  private readonly presenter: UpdatePresenter;

  constructor(private readonly o: PendingUpdateOptions) {
    this.presenter = new UpdatePresenter({
      ...o,
      apply: () => void this.apply(),
    });
  }

  get state(): PendingState | 'none' {
    return this.pending?.state ?? 'none';
  }

  get md5(): string | null {
    return this.pending?.event.md5 ?? null;
  }

  private file(md5: string): string {
    return `update-${md5}.apk`;
  }

  private log(level: 'info' | 'warn' | 'error', message: string): void {
    this.o.ports.logger.log(level, message);
  }

  /** Restores what the last run left: an applied update is cleared, a partial one resumed. */
  async load(): Promise<void> {
    const raw = await this.o.ports.storage.read(PENDING_KEY);
    const gaveUp = await this.o.ports.storage.read(GAVE_UP_KEY);
    this.gaveUp = gaveUp ? (JSON.parse(gaveUp) as string[]) : [];
    if (!raw) return;
    const saved = JSON.parse(raw) as Pending;
    if (saved.event.md5 === this.o.installedMd5) {
      this.log('info', `update ${saved.event.md5} is installed`);
      // Replaced before the installer's answer was heard: running the new APK is the success.
      if (!(await this.o.outcomes.is(saved.event.md5, 'success'))) {
        await this.o.outcomes.record(saved.event, 'success', 0, 'installed', saved.transfer);
      }
      await this.o.ports.storage.removeFile(this.file(saved.event.md5));
      await this.save(null);
      return;
    }
    // An install the OS did not complete leaves the update downloaded, not applied.
    this.pending = {
      event: saved.event,
      state: saved.state === 'installing' ? 'downloaded' : saved.state,
    };
    if (this.pending.state === 'downloading') this.download(this.pending);
    else this.present();
  }

  private async save(pending: Pending | null): Promise<void> {
    this.pending = pending;
    await this.o.ports.storage.write(PENDING_KEY, pending ? JSON.stringify(pending) : '');
  }

  /** A verified (signed, addressed to this device) version event. */
  async onVersion(event: VersionEvent): Promise<void> {
    if (event.md5 === this.o.installedMd5) return; // already running it
    if (this.pending?.event.md5 === event.md5) {
      if (this.pending.state === 'downloaded') this.present();
      return;
    }
    this.o.emit({
      event: 'version',
      md5: event.md5,
      apkId: event.apkId,
      versionCode: event.versionCode,
    });
    await this.discard();
    const pending: Pending = { event, state: 'downloading' };
    await this.save(pending);
    this.download(pending);
  }

  private download(pending: Pending, attempt = 0, tampered = 0): void {
    if (this.stopped) return;
    const generation = ++this.generation;
    const current = () => this.generation === generation && this.pending === pending;
    const { event } = pending;
    void (async () => {
      const result = await this.fetchOnce(pending, () => !current());
      if (!current()) return;
      if (result.kind === 'verified') {
        this.log(
          'info',
          `update ${event.md5} (versionCode ${event.versionCode}) downloaded and verified`,
        );
        pending.state = 'downloaded';
        await this.save(pending);
        this.o.emit({ event: 'downloaded', md5: event.md5, verified: true });
        this.o.downloaded(event.md5);
        this.present();
        return;
      }
      const again = result.kind === 'tampered' ? tampered + 1 : tampered;
      if (result.kind === 'tampered') {
        this.log('error', `update ${event.md5} refused: ${result.reason}; the file was deleted`);
        this.o.emit({
          event: 'downloaded',
          md5: event.md5,
          verified: false,
          reason: result.reason,
        });
        if (again >= this.o.maxTamperedDownloads) {
          this.o.emit({
            event: 'error',
            message: `update ${event.md5} abandoned: ${result.reason}`,
          });
          await this.save(null);
          return;
        }
      } else {
        this.log('warn', `download of ${event.md5} interrupted (${result.reason}); will resume`);
      }
      const delay = backoffDelay(this.o.downloadBackoff, attempt, this.o.ports.clock.random());
      this.retryTimer = this.o.ports.clock.setTimeout(() => {
        if (current()) this.download(pending, attempt + 1, again);
      }, delay);
    })().catch((err: unknown) => {
      this.log('error', `download of ${event.md5} failed: ${coerceError(err).message}`);
      this.o.emit({ event: 'error', message: coerceError(err).message });
    });
  }

  /**
   * One attempt: first (once per update) as a patch from the installed APK when the platform can
   * read it and inflate; on any failure of the patch, or after it, the full APK, resumed.
   */
  private async fetchOnce(pending: Pending, cancelled: () => boolean): Promise<DownloadResult> {
    const { event } = pending;
    const file = this.file(event.md5);
    const credentials = { apiKey: this.o.apiKey, deviceId: this.o.deviceId };
    const { installedApk: installed, inflater } = this.o.ports;
    if (!pending.transfer && installed && inflater && installed.md5 === this.o.installedMd5) {
      const delta = await deltaOnce(
        { ...this.o.ports, installed, inflater },
        event,
        file,
        credentials,
      );
      if (delta.kind === 'verified') {
        pending.transfer = { via: 'delta', bytes: delta.bytes, fallback: null };
        await this.save(pending);
        return { kind: 'verified' };
      }
      this.log('info', `patch for ${event.md5} not used (${delta.reason}: ${delta.message})`);
      const fallback = { reason: delta.reason, message: delta.message };
      pending.transfer = { via: 'full', bytes: delta.bytes, fallback };
      await this.save(pending);
    }
    const transfer = (pending.transfer ??= { via: 'full', bytes: 0, fallback: null });
    const counted = (n: number) => {
      pending.transfer = { ...transfer, bytes: (pending.transfer?.bytes ?? 0) + n };
    };
    const result = await downloadOnce(this.o.ports, event, file, credentials, cancelled, counted);
    await this.save(pending);
    return result;
  }

  /** A verified give-up. Only an update not yet applied is given up, and only once. */
  async onGiveup(event: GiveupEvent): Promise<void> {
    if (this.gaveUp.includes(event.apkId)) return;
    const pending = this.pending;
    if (!pending || pending.event.apkId !== event.apkId) {
      this.log('info', `give-up of ${event.apkId}: no such pending update`);
      return;
    }
    this.gaveUp = [...this.gaveUp, event.apkId].slice(-GAVE_UP_KEPT);
    await this.o.ports.storage.write(GAVE_UP_KEY, JSON.stringify(this.gaveUp));
    this.log('info', `update ${pending.event.md5} given up by the administrator`);
    await this.discard();
    if (this.o.strategies.name === 'CUSTOM') {
      this.o.ports.broadcaster.send(`${this.o.packageName}.svc.GIVEUP`, {});
    }
    this.o.emit({ event: 'giveup', apkId: event.apkId, md5: event.md5 });
  }

  /** Withdraws UI and timers and deletes the file of the pending update, if any. */
  private async discard(): Promise<void> {
    this.generation++;
    this.retryTimer?.();
    this.presenter.withdraw();
    const old = this.pending;
    if (!old) return;
    await this.save(null);
    await this.o.ports.storage.removeFile(this.file(old.event.md5));
  }

  /** Acts per strategy when an update is downloaded, not applied, and idle is true. */
  present(): void {
    if (this.pending?.state !== 'downloaded') return;
    if (!this.o.idle()) return;
    this.presenter.present(
      this.pending.event.md5,
      this.o.ports.storage.location(this.file(this.pending.event.md5)),
    );
  }

  withdraw(): void {
    this.presenter.withdraw();
  }

  activityChanged(): void {
    if (this.o.idle()) this.presenter.activityChanged();
  }

  /** Spec: tells whether an update is downloaded but not applied, and notifies again. */
  hasPendingUpdate(): boolean {
    if (this.pending?.state !== 'downloaded') return false;
    this.presenter.withdraw();
    this.present();
    return true;
  }

  /** The user accepted, or custom code applies: hand the file to the OS (idle must be true). */
  async apply(): Promise<boolean> {
    const pending = this.pending;
    if (pending?.state !== 'downloaded') return false;
    if (!this.o.idle()) {
      this.log('warn', 'update not applied: idle is false');
      return false;
    }
    const file = this.file(pending.event.md5);
    // The file is checked again right before the install: storage may have been tampered with.
    const check = await verifyFile(this.o.ports, file, pending.event);
    if (check.kind !== 'verified') {
      this.log('error', `update ${pending.event.md5} refused before install: ${check.reason}`);
      this.o.emit({ event: 'refused', what: 'install', reason: check.reason });
      await this.discard();
      return false;
    }
    this.presenter.withdraw();
    pending.state = 'installing';
    await this.save(pending);
    const location = this.o.ports.storage.location(file);
    const failure = await this.o.ports.installer.install(location, pending.event).then(
      () => null,
      (err: unknown) => ({ err }),
    );
    const { md5 } = pending.event;
    if (!failure) {
      this.log('info', `update ${md5} handed to the OS installer`);
      await this.o.outcomes.record(pending.event, 'success', 0, null, pending.transfer);
      this.o.emit({ event: 'install', md5, ok: true });
      return true;
    }
    const why = coerceError(failure.err).message;
    this.log('error', `installation of ${md5} failed: ${why}`);
    const os = osStatusOf(failure.err);
    await this.o.outcomes.record(pending.event, 'failure', os, why, pending.transfer);
    this.o.emit({ event: 'install', md5, ok: false });
    pending.state = 'downloaded';
    await this.save(pending);
    return false;
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.retryTimer?.();
    this.presenter.withdraw();
  }
}
