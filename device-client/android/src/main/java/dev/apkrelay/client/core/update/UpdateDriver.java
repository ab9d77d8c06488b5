package dev.apkrelay.client.core.update;

import dev.apkrelay.client.core.delta.DeltaFetch;
import dev.apkrelay.client.core.download.DownloadResult;
import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.protocol.GiveupEvent;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.sse.Backoff;
import dev.apkrelay.client.core.update.PendingUpdate.Action;
import java.io.IOException;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Carries out {@link PendingUpdate}'s answers: downloads (resumed with backoff) on their own
 * executor, so a long transfer never delays heartbeats or exception delivery; presenting per the
 * idle flag, the install hand-off and the OS's answer on the engine's executor. An installation the
 * OS never answers (a confirmation nobody gives, a notification the OS dropped) is given up after
 * {@code installAnswerTimeoutMs}: downloaded again, with a failure outcome for the heartbeat, so no
 * state is ever stuck in installing. The decisions stay in PendingUpdate.
 */
public final class UpdateDriver {
  private final Storage storage;
  private final Clock clock;
  private final Logger logger;
  private final UpdatePresenter presenter;
  private final ScheduledExecutorService executor;
  private final ScheduledExecutorService downloads;
  private final Downloader downloader;
  private final String apiKey;
  private final String deviceId;
  private final Backoff downloadBackoff = Backoff.reconnectDefault();
  private volatile PendingUpdate pending;
  private volatile boolean idle = true;
  private volatile boolean stopped;
  private volatile String lastDownloadedMd5;
  private volatile long installAnswerTimeoutMs = DEFAULT_INSTALL_ANSWER_TIMEOUT_MS;
  private int downloadAttempt;
  private volatile DeltaFetch delta;

  /** How long an installation may wait for the OS's answer (a confirmation included): 15 minutes. */
  public static final long DEFAULT_INSTALL_ANSWER_TIMEOUT_MS = 15 * 60_000L;

  /** @param downloads where downloads run (not {@code executor}: heartbeats and reports go on there) */
  public UpdateDriver(Storage storage, Clock clock, Logger logger, UpdatePresenter presenter,
      ScheduledExecutorService executor, ScheduledExecutorService downloads, Downloader downloader,
      String apiKey, String deviceId) {
    this.storage = storage;
    this.clock = clock;
    this.logger = logger;
    this.presenter = presenter;
    this.executor = executor;
    this.downloads = downloads;
    this.downloader = downloader;
    this.apiKey = apiKey;
    this.deviceId = deviceId;
  }

  /** Takes the saved pending update (on the executor) and resumes what it says. */
  public void start(PendingUpdate loaded) throws IOException {
    pending = loaded;
    act(loaded.load());
  }

  public void stop() {
    stopped = true;
  }

  /** See {@link #DEFAULT_INSTALL_ANSWER_TIMEOUT_MS}. */
  public void installAnswerTimeoutMs(long ms) {
    if (ms < 1) throw new IllegalArgumentException("the install answer timeout must be at least 1 ms");
    installAnswerTimeoutMs = ms;
  }

  /** The MD5 of the last fully downloaded and verified APK in this run, or null. */
  public String lastDownloadedMd5() {
    return lastDownloadedMd5;
  }

  /** A verified version notice for an enabled installation. */
  public void onVersion(VersionEvent event) throws IOException {
    act(pending.onVersion(event));
  }

  /** A verified give-up: withdraw the pending update when it is the one given up. */
  public void onGiveup(GiveupEvent giveup) throws IOException {
    if (pending.onGiveup(giveup)) presenter.withdraw(true);
  }

  private void act(Action action) {
    if (action == Action.DOWNLOAD) {
      presenter.withdraw(false);
      downloadAttempt = 0;
      downloads.execute(this::download);
    } else if (action == Action.PRESENT) {
      present();
    }
  }

  /**
   * Updates by delta when {@code fetch} is given (issue 37): a verified notice first asks for a
   * patch from the installed APK; any failure falls back to the full download. Null: full only.
   */
  public void delta(DeltaFetch fetch) {
    delta = fetch;
  }

  private void download() {
    PendingUpdate p = pending;
    VersionEvent e = p.event();
    if (e == null || p.state() != PendingUpdate.State.DOWNLOADING) return;
    try {
      DownloadRecord record = DownloadRecord.load(storage, e.md5);
      BooleanSupplier cancelled = () -> stopped || p.event() != e;
      DownloadResult result = byDelta(e, p.fileName(), record, cancelled);
      if (result == null && cancelled.getAsBoolean()) return;
      if (result == null) {
        record.wholeApk();
        try {
          result = downloader.download(e, p.fileName(), apiKey, deviceId, cancelled, record::received);
        } finally {
          record.save(storage);
        }
      }
      Action next = p.onDownloaded(e, result);
      if (next == Action.PRESENT) {
        lastDownloadedMd5 = e.md5;
        executor.execute(this::present);
      } else if (next == Action.RETRY) {
        downloads.schedule(this::download, downloadBackoff.delay(downloadAttempt++, clock.random()), TimeUnit.MILLISECONDS);
      }
    } catch (IOException | RuntimeException ex) {
      logger.log(Level.ERROR, "download of " + e.md5 + " failed: " + ex.getMessage());
    }
  }

  /** The patched APK, verified; null when no delta applies (the full download follows). */
  private DownloadResult byDelta(VersionEvent e, String file, DownloadRecord record, BooleanSupplier cancelled)
      throws IOException {
    DeltaFetch fetch = delta;
    if (fetch == null) record.noDelta();
    if (!record.deltaOpen()) return null;
    DeltaFetch.Result r;
    try {
      r = fetch.attempt(e, file, cancelled, record::received);
    } finally {
      record.save(storage);
    }
    if (r.cancelled()) return null;
    if (r.applied()) {
      logger.log(Level.INFO, "update " + e.md5 + " patched from the installed APK");
      record.viaDelta();
      record.save(storage);
      return DownloadResult.verified();
    }
    logger.log(Level.WARN, "delta for " + e.md5 + " not used (" + r.reason + ": " + r.message + "); downloading the APK");
    record.fellBack(r.reason, r.message);
    record.save(storage);
    return null;
  }

  private void present() {
    PendingUpdate p = pending;
    if (p != null && idle && p.hasPendingUpdate()) presenter.present(p.event(), storage.location(p.fileName()));
  }

  /** Spec "Idle flag": false withdraws everything; true presents a pending update again. */
  public void idle(boolean value) {
    idle = value;
    if (pending == null) return;
    executor.execute(() -> {
      if (value) present();
      else presenter.withdraw(false);
    });
  }

  /** Spec: downloaded but not applied; notifies again (respecting idle). */
  public boolean hasPendingUpdate() {
    PendingUpdate p = pending;
    if (p == null || !p.hasPendingUpdate()) return false;
    executor.execute(this::present);
    return true;
  }

  /**
   * Whether {@link #apply} would install now: an update is downloaded, verified and not applied,
   * and idle is true (no side effect, unlike hasPendingUpdate).
   */
  public boolean applicable() {
    PendingUpdate p = pending;
    return idle && p != null && p.hasPendingUpdate();
  }

  /** The user accepted (notification, Update) or custom code applies: hash again, then install. */
  public void apply() {
    executor.execute(() -> {
      PendingUpdate p = pending;
      if (p == null || p.apply(idle) != Action.INSTALL) return;
      VersionEvent e = p.event();
      try {
        DownloadResult check = downloader.verifyFile(e, p.fileName());
        if (check.kind != DownloadResult.Kind.VERIFIED) {
          p.refusedBeforeInstall(check.reason);
          presenter.withdraw(false);
          return;
        }
        presenter.withdraw(false);
        p.installing();
        presenter.install(e, storage.location(p.fileName()));
        logger.log(Level.INFO, "update " + e.md5 + " handed to the OS installer");
        long timeout = installAnswerTimeoutMs;
        executor.schedule(() -> unanswered(p, e, timeout), timeout, TimeUnit.MILLISECONDS);
      } catch (Exception ex) {
        failed(p, -1, String.valueOf(ex.getMessage()));
      }
    });
  }

  /**
   * The OS's answer to a committed session (the installer's status receiver). Success of a
   * self-update is normally never heard (the process is replaced) and is recorded at the next start
   * instead; a failure makes the update pending again and presents it again.
   */
  public void installResult(String md5, boolean success, int status, String message) {
    executor.execute(() -> {
      PendingUpdate p = pending;
      if (p == null || p.event() == null || !p.event().md5.equals(md5)) return; // stale or duplicate
      if (success) {
        logger.log(Level.INFO, "update " + md5 + " installed: status " + status);
        try {
          p.installSucceeded(status, message);
        } catch (IOException e) {
          logger.log(Level.WARN, "installation outcome not saved: " + e.getMessage());
        }
        return;
      }
      failed(p, status, message);
    });
  }

  /** No answer from the OS in time: the installation failed, the update is offered again. */
  private void unanswered(PendingUpdate p, VersionEvent e, long timeoutMs) {
    if (pending != p || p.event() != e || p.state() != PendingUpdate.State.INSTALLING) return;
    failed(p, -1, "no answer from the installer within "
        + (timeoutMs >= 1000 ? timeoutMs / 1000 + " s" : timeoutMs + " ms")
        + " (the confirmation was not given, or the OS dropped it)");
  }

  private void failed(PendingUpdate p, int status, String message) {
    try {
      p.installFailed(status, message);
    } catch (IOException ignored) {
      // the state stays installing; the next start turns it back into downloaded
    }
    present();
  }

  /** The last installation's outcome (JSON, see PendingUpdate#installOutcome), or null. */
  public String installOutcome() {
    PendingUpdate p = pending;
    try {
      return p == null ? null : p.installOutcome();
    } catch (IOException e) {
      return null;
    }
  }

  /** The outcome not yet accepted by the server, or null; {@link #outcomeReported} once it is. */
  public Map<String, Object> unreportedOutcome() throws IOException {
    PendingUpdate p = pending;
    return p == null ? null : p.unreportedOutcome();
  }

  public void outcomeReported(Map<String, Object> sent) throws IOException {
    PendingUpdate p = pending;
    if (p != null) p.outcomeReported(sent);
  }

  /** FRIENDLY_POPUP's Not Now kept in the pending update's record (survives a restart). */
  public StrategyPresenter.Reminder reminder() {
    return new StrategyPresenter.Reminder() {
      @Override
      public void notNow(int seconds) {
        PendingUpdate p = pending;
        if (p == null) return;
        try {
          p.notNow(clock.now(), seconds);
        } catch (IOException e) {
          logger.log(Level.WARN, "Not Now not saved: " + e.getMessage());
        }
      }

      @Override
      public long msUntilDue() {
        PendingUpdate p = pending;
        return p == null ? 0 : p.msUntilPopupDue(clock.now());
      }
    };
  }
}
