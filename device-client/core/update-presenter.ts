/**
 * What each strategy shows for a downloaded update (spec 4.4 "Strategy behaviour"), and its
 * withdrawal: STATUS_BAR posts a notification that stays until installation; FRIENDLY_POPUP asks
 * with "Not Now"/"Update" and asks again after the reminder time; ANNOYING_POPUP has one Update
 * button; CUSTOM displays nothing and broadcasts `<package>.svc.APPLY` (extra `uri`) now and
 * every `applyIntervalMs` until the update is applied, given up or idle turns false.
 */
import type { EventListener } from './events';
import type { Cancel, Ports } from './ports';
import type { Strategies } from './strategies';

export interface PresenterOptions {
  readonly ports: Ports;
  readonly strategies: Strategies;
  readonly packageName: string;
  readonly appName: string;
  readonly applyIntervalMs: number;
  readonly activity: () => unknown;
  readonly emit: EventListener;
  readonly apply: () => void;
}

export class UpdatePresenter {
  private notification = false;
  private popup = false;
  private timer: Cancel | undefined;
  private shown: { md5: string; uri: string } | null = null;

  constructor(private readonly o: PresenterOptions) {}

  present(md5: string, uri: string): void {
    if (this.shown?.md5 === md5 && this.timer) return; // CUSTOM broadcasts already running
    this.shown = { md5, uri };
    const { ports, strategies, appName } = this.o;
    const s = strategies.objects;
    switch (strategies.name) {
      case 'STATUS_BAR':
        ports.ui.showNotification(
          {
            title: s.STATUS_BAR.getStatusBarTitle(appName),
            description: s.STATUS_BAR.getStatusBarDescription(),
          },
          () => this.o.apply(),
        );
        this.notification = true;
        return;
      case 'FRIENDLY_POPUP': {
        const f = s.FRIENDLY_POPUP;
        this.showPopup(
          {
            kind: 'friendly',
            message: f.getPopUpMessage(appName),
            buttons: [
              { label: f.getNotNowButton(), action: 'not_now' },
              { label: f.getUpdateButton(), action: 'update' },
            ],
            dismissible: false,
          },
          () => {
            this.timer = ports.clock.setTimeout(() => {
              this.timer = undefined;
              if (this.shown) this.present(this.shown.md5, this.shown.uri);
            }, f.getReminderTimeInSeconds() * 1000);
          },
        );
        return;
      }
      case 'ANNOYING_POPUP': {
        const a = s.ANNOYING_POPUP;
        this.showPopup(
          {
            kind: 'annoying',
            message: a.getPopUpMessage(appName),
            buttons: [{ label: a.getUpdateButton(), action: 'update' }],
            dismissible: false,
          },
          () => undefined,
        );
        return;
      }
      case 'CUSTOM':
        this.broadcastApply();
        return;
    }
  }

  private showPopup(popup: Parameters<Ports['ui']['showPopup']>[1], notNow: () => void): void {
    const activity = this.o.activity();
    if (activity === undefined || activity === null) {
      // Android's BadTokenException: a popup needs the current activity.
      const message =
        'BadTokenException: popup strategies need Client.setCurrentActivity(activity) (call it in onResume)';
      this.o.ports.logger.log('error', message);
      this.o.emit({ event: 'error', message });
      return;
    }
    this.o.ports.ui.showPopup(activity, popup, (action) => {
      this.o.ports.ui.hidePopup();
      this.popup = false;
      if (action === 'update') this.o.apply();
      else notNow();
    });
    this.popup = true;
  }

  private broadcastApply(): void {
    const shown = this.shown;
    if (!shown) return;
    this.o.ports.broadcaster.send(`${this.o.packageName}.svc.APPLY`, { uri: shown.uri });
    this.o.emit({ event: 'apply', md5: shown.md5, uri: shown.uri });
    this.timer = this.o.ports.clock.setTimeout(() => this.broadcastApply(), this.o.applyIntervalMs);
  }

  /** Status bar message cleared, popups hidden, broadcasts and reminders stopped. */
  withdraw(): void {
    this.timer?.();
    this.timer = undefined;
    this.shown = null;
    if (this.notification) this.o.ports.ui.cancelNotification();
    if (this.popup) this.o.ports.ui.hidePopup();
    this.notification = false;
    this.popup = false;
  }

  /** The activity changed: a popup that could not be shown without one is shown now. */
  activityChanged(): void {
    if (this.shown && !this.popup && !this.timer && this.o.strategies.name.endsWith('POPUP')) {
      this.present(this.shown.md5, this.shown.uri);
    }
  }
}
