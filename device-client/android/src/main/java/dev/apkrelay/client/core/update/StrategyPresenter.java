package dev.apkrelay.client.core.update;

import dev.apkrelay.client.core.Engine;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.ports.Scheduler;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.strategy.AnnoyingPopUpStrategy;
import dev.apkrelay.client.strategy.CustomStrategy;
import dev.apkrelay.client.strategy.FriendlyPopUpStrategy;
import dev.apkrelay.client.strategy.Strategies;
import dev.apkrelay.client.strategy.StatusBarStrategy;
import java.util.Collections;

/**
 * What each strategy does with a downloaded, verified update (spec 4.4 "Strategy behaviour", 6),
 * as device-client/core/update-presenter.ts: STATUS_BAR posts a notification that stays until
 * installation; FRIENDLY_POPUP asks with Not Now / Update and asks again after the reminder time;
 * ANNOYING_POPUP has one Update button; CUSTOM shows nothing and broadcasts
 * {@code <package>.svc.APPLY} (extra {@code uri}) now and every 30 s until the update is applied,
 * withdrawn or idle turns false, and {@code .svc.GIVEUP} once when the administrator gives it up.
 * Accepting (click, Update) calls {@code accept}, the engine's apply. Not thread-safe: call it
 * from one thread (the engine's executor, or the glue's main-thread handler).
 */
public final class StrategyPresenter implements Engine.Presenter {
  private final Strategies strategies;
  private final Ui ui;
  private final Scheduler scheduler;
  private final Logger logger;
  private final String packageName;
  private final String appName;
  private Runnable accept = () -> { };
  private Reminder reminder = Reminder.IN_MEMORY;
  private VersionEvent shown;
  private String location;
  private boolean notification;
  private boolean popup;
  private Scheduler.Cancel timer;

  public StrategyPresenter(Strategies strategies, Ui ui, Scheduler scheduler, Logger logger,
      String packageName, String appName) {
    this.strategies = strategies;
    this.ui = ui;
    this.scheduler = scheduler;
    this.logger = logger;
    this.packageName = packageName;
    this.appName = appName;
  }

  /** Where FRIENDLY_POPUP's Not Now is kept, so that a restart does not ask again too early. */
  public interface Reminder {
    /** Not Now was pressed: ask again in {@code seconds}. */
    void notNow(int seconds);

    /** Milliseconds until the friendly popup may show again; 0 or less: now. */
    long msUntilDue();

    Reminder IN_MEMORY = new Reminder() {
      @Override
      public void notNow(int seconds) { }

      @Override
      public long msUntilDue() {
        return 0;
      }
    };
  }

  /** Persists Not Now (the engine's PendingUpdate); by default it is only held in memory. */
  public void reminder(Reminder reminder) {
    this.reminder = reminder;
  }

  /** What a click on the notification or the Update button does (the engine's apply). */
  public void onAccept(Runnable accept) {
    this.accept = accept;
  }

  @Override
  public void present(VersionEvent event, String at) {
    if (shown != null && shown.md5.equals(event.md5) && timer != null) return; // already repeating
    shown = event;
    location = at;
    switch (strategies.name()) {
      case STATUS_BAR: {
        StatusBarStrategy s = strategies.statusBar();
        ui.showNotification(s.getStatusBarTitle(appName), s.getStatusBarDescription(), accept);
        notification = true;
        return;
      }
      case FRIENDLY_POPUP: {
        FriendlyPopUpStrategy f = strategies.friendlyPopUp();
        long wait = reminder.msUntilDue();
        if (wait > 0) { // a Not Now from before a restart still holds
          if (timer != null) timer.cancel();
          timer = scheduler.schedule(this::again, wait);
          return;
        }
        showPopup(f.getPopUpMessage(appName), f.getNotNowButton(), f.getUpdateButton(), () -> {
          popup = false;
          reminder.notNow(f.getReminderTimeInSeconds());
          timer = scheduler.schedule(this::again, f.getReminderTimeInSeconds() * 1000L);
        });
        return;
      }
      case ANNOYING_POPUP: {
        AnnoyingPopUpStrategy a = strategies.annoyingPopUp();
        showPopup(a.getPopUpMessage(appName), null, a.getUpdateButton(), null);
        return;
      }
      default:
        broadcastApply();
    }
  }

  private void again() {
    timer = null;
    if (shown != null) present(shown, location);
  }

  private void showPopup(String message, String notNow, String update, Runnable onNotNow) {
    Runnable onUpdate = () -> {
      popup = false;
      ui.hidePopup();
      accept.run();
    };
    Runnable notNowThen = onNotNow == null ? null : () -> {
      ui.hidePopup();
      onNotNow.run();
    };
    if (!ui.showPopup(message, notNow, update, notNowThen, onUpdate)) {
      logger.log(Level.ERROR, "BadTokenException: popup strategies need Client.setCurrentActivity(activity)"
          + " (call it in onResume)");
      return;
    }
    popup = true;
  }

  private void broadcastApply() {
    if (shown == null) return;
    ui.broadcast(CustomStrategy.applyAction(packageName),
        Collections.singletonMap(CustomStrategy.EXTRA_URI, ui.uriFor(location)));
    timer = scheduler.schedule(() -> {
      timer = null;
      broadcastApply();
    }, CustomStrategy.APPLY_PERIOD_MS);
  }

  /** Notification cleared, popup hidden, APPLY and reminders stopped; GIVEUP once if given up under CUSTOM. */
  @Override
  public void withdraw(boolean gaveUp) {
    if (timer != null) timer.cancel();
    timer = null;
    shown = null;
    if (notification) ui.cancelNotification();
    if (popup) ui.hidePopup();
    notification = false;
    popup = false;
    if (gaveUp && strategies.name() == dev.apkrelay.client.strategy.Strategy.CUSTOM) {
      ui.broadcast(CustomStrategy.giveupAction(packageName), Collections.<String, String>emptyMap());
    }
  }

  /** The current activity changed: a popup that could not be shown without one is shown now. */
  public void activityChanged() {
    if (shown != null && !popup && timer == null && strategies.name().name().endsWith("POPUP")) {
      present(shown, location);
    }
  }

  @Override
  public void install(VersionEvent event, String at) throws Exception {
    ui.install(event, at);
  }
}
