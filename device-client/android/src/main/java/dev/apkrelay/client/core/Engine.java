package dev.apkrelay.client.core;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.download.DownloadResult;
import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.HttpTransport;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.ports.Scheduler;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.protocol.NoticeAudience;
import dev.apkrelay.client.core.protocol.RoutedEvent;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.push.PushSession;
import dev.apkrelay.client.core.queue.ExceptionQueue;
import dev.apkrelay.client.core.queue.ExceptionReport;
import dev.apkrelay.client.core.sse.Backoff;
import dev.apkrelay.client.core.sse.SseEvent;
import dev.apkrelay.client.core.update.PendingUpdate;
import dev.apkrelay.client.core.update.PendingUpdate.Action;
import dev.apkrelay.client.core.update.StrategyPresenter;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The running client without its platform: the push session on its own thread, and on one
 * scheduled executor the heartbeat, downloads (resumed with backoff), the pending-update decisions
 * and exception delivery. What the user sees and the OS installs goes through {@link Presenter}.
 */
public final class Engine {
  /** The glue's side: strategies' UI and broadcasts, and the installer. Called on worker threads. */
  public interface Presenter {
    /** A verified update is downloaded, not applied, and idle is true: act per strategy. */
    void present(VersionEvent event, String location);

    /** Withdraw notification and popups, stop APPLY; {@code gaveUp}: send GIVEUP once (CUSTOM). */
    void withdraw(boolean gaveUp);

    /** Hand the verified file to the OS; throw with the OS's status and message on failure. */
    void install(VersionEvent event, String location) throws Exception;
  }

  /** What start knows: credentials, hosts, the running APK's MD5 (nullable), the pinned key (nullable). */
  public static final class Config {
    public String packageName;
    public String apiKey;
    public String deviceId;
    public String pushUrl;
    public String baseUrl;
    public String pushKeySpki;
    public String installedMd5;
    public int maxExceptionQueue = 50;
    public int maxTamperedDownloads = 3;
  }

  /** Where the issuedAt (epoch ms) of the latest accepted notice is kept: the TS client's key. */
  static final String LAST_NOTICE_KEY = "last-notice-at";

  private final Config config;
  private final HttpTransport transport;
  private final Storage storage;
  private final Clock clock;
  private final Logger logger;
  private final Presenter presenter;
  private final ScheduledExecutorService executor;
  private final Supplier<Map<String, Object>> registration;
  private final PushSession push;
  private final Downloader downloader;
  private final Backoff downloadBackoff = Backoff.reconnectDefault();
  private volatile PendingUpdate pending;
  private volatile ExceptionQueue exceptions;
  private volatile boolean idle = true;
  private volatile boolean stopped;
  private volatile String status;
  private volatile String lastDownloadedMd5;
  /** Reports are delivered only once the installation's registration was answered in this run. */
  private volatile boolean registered;
  private int downloadAttempt;
  private boolean delivering;

  /** @param registration the body of POST /api/v2/installations, read afresh for each use */
  public Engine(Config config, HttpTransport transport, Storage storage, Clock clock, Logger logger,
      Presenter presenter, ScheduledExecutorService executor, Supplier<Map<String, Object>> registration) {
    this.config = config;
    this.transport = transport;
    this.storage = storage;
    this.clock = clock;
    this.logger = logger;
    this.presenter = presenter;
    this.executor = executor;
    this.registration = registration;
    this.downloader = new Downloader(transport, storage);
    this.push = new PushSession(transport, storage, clock, logger, Backoff.reconnectDefault(), config.pushUrl,
        config.apiKey, config.pushKeySpki, new PushSession.Listener() {
          @Override
          public void onEvent(SseEvent event, PushKey key, String accountId) throws IOException {
            route(check(event, key, accountId));
          }

          @Override
          public void onStatus(String s) {
            status = s;
            if (registered) return;
            registered = true;
            ExceptionQueue q = exceptions;
            if (q != null) q.registered();
            deliverExceptions();
          }

          @Override
          public void onRegistrationFailed(String reason) {
            ExceptionQueue q = exceptions;
            if (!registered && q != null) q.registrationFailed(reason);
          }
        });
  }

  /** Reads the saved state and starts the push thread and exception delivery; off the main thread. */
  public void start() {
    executor.execute(() -> {
      try {
        exceptions = new ExceptionQueue(storage, transport, clock, logger, Backoff.exceptionDefault(),
            config.baseUrl, config.apiKey, config.maxExceptionQueue);
        pending = new PendingUpdate(storage, logger, config.installedMd5, config.maxTamperedDownloads, clock);
        act(pending.load());
        deliverExceptions();
      } catch (IOException | RuntimeException e) {
        logger.log(Level.ERROR, "start failed: " + e.getMessage());
        return;
      }
      Thread t = new Thread(this::pushLoop, "apkrelay-push");
      t.setDaemon(true);
      t.start();
      scheduleHeartbeat();
    });
  }

  public void stop() {
    stopped = true;
    push.stop();
    executor.shutdownNow();
  }

  private void pushLoop() {
    while (!stopped) {
      long wait = push.connectOnce(registrationBody());
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private Map<String, Object> registrationBody() {
    Map<String, Object> body = registration.get();
    body.put("lastDownloadedMd5", lastDownloadedMd5);
    return body;
  }

  /**
   * Beats every heartbeatSeconds of the registration reply, the first one that long after
   * registration (checked every second until then: the server's period is not known before).
   */
  private void scheduleHeartbeat() {
    if (stopped) return;
    boolean registered = push.registered();
    executor.schedule(() -> {
      if (registered && push.registered()) heartbeat();
      scheduleHeartbeat();
    }, registered ? push.heartbeatMs() : 1_000, TimeUnit.MILLISECONDS);
  }

  /** One heartbeat; the last installation's outcome rides on it until the server accepts it once. */
  private void heartbeat() {
    Map<String, Object> body = registrationBody();
    PendingUpdate p = pending;
    Map<String, Object> outcome = null;
    try {
      outcome = p == null ? null : p.unreportedOutcome();
      if (outcome != null) body.put("lastInstall", outcome);
      if (push.heartbeat(body) && outcome != null) p.outcomeReported(outcome);
    } catch (IOException e) {
      logger.log(Level.WARN, "installation outcome not kept: " + e.getMessage());
    }
  }

  /**
   * Checks an event as device-client/core/route-event.ts does (docs/push.md, "Notice binding and
   * staleness (format 2)"): a notice must name this account (from the registration reply; "" when
   * it named none, so every notice is refused), this package and this device (or {@code *}), be
   * signed by the pinned key, not be more than a minute older than the last notice accepted, and be
   * within a day of this device's clock. The issuedAt of the latest accepted notice is stored under
   * {@link #LAST_NOTICE_KEY} (epoch ms as decimal text, as the TS client), so a replay of an older
   * one is refused after a restart too.
   */
  private RoutedEvent check(SseEvent event, PushKey key, String accountId) throws IOException {
    boolean notice = "version".equals(event.event) || "giveup".equals(event.event);
    Long lastAcceptedAtMs = notice ? lastAcceptedAtMs() : null;
    NoticeAudience to = new NoticeAudience(accountId == null ? "" : accountId, config.packageName,
        config.deviceId);
    RoutedEvent r = RoutedEvent.route(event, to, key, lastAcceptedAtMs, clock.now());
    boolean accepted = r.kind == RoutedEvent.Kind.VERSION || r.kind == RoutedEvent.Kind.GIVEUP;
    if (accepted && (lastAcceptedAtMs == null || r.issuedAtMs > lastAcceptedAtMs)) {
      storage.write(LAST_NOTICE_KEY, String.valueOf(r.issuedAtMs));
    }
    return r;
  }

  /** The stored issuedAt of the last accepted notice, or null when none (or unreadable). */
  private Long lastAcceptedAtMs() throws IOException {
    String stored = storage.read(LAST_NOTICE_KEY);
    if (stored == null) return null;
    try {
      long ms = Long.parseLong(stored.trim());
      return ms > 0 ? ms : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private void route(RoutedEvent r) throws IOException {
    switch (r.kind) {
      case STATUS:
        status = r.status;
        return;
      case REFUSED:
        logger.log(Level.ERROR, "push: event refused (" + r.reason + ")");
        return;
      case VERSION:
        if (!"enabled".equals(status)) {
          logger.log(Level.WARN, "push: version event ignored: this installation is not enabled");
          return;
        }
        act(pending.onVersion(r.version));
        return;
      case GIVEUP:
        if (pending.onGiveup(r.giveup)) presenter.withdraw(true);
        return;
      default:
        return;
    }
  }

  private void act(Action action) {
    switch (action) {
      case DOWNLOAD:
        presenter.withdraw(false);
        downloadAttempt = 0;
        executor.execute(this::download);
        return;
      case PRESENT:
        present();
        return;
      default:
        return;
    }
  }

  private void download() {
    PendingUpdate p = pending;
    VersionEvent e = p.event();
    if (e == null || p.state() != PendingUpdate.State.DOWNLOADING) return;
    try {
      DownloadResult result = downloader.download(e, p.fileName(), config.apiKey, config.deviceId,
          () -> stopped || p.event() != e);
      Action next = p.onDownloaded(e, result);
      if (next == Action.PRESENT) {
        lastDownloadedMd5 = e.md5;
        present();
      } else if (next == Action.RETRY) {
        executor.schedule(this::download, downloadBackoff.delay(downloadAttempt++, clock.random()), TimeUnit.MILLISECONDS);
      }
    } catch (IOException | RuntimeException ex) {
      logger.log(Level.ERROR, "download of " + e.md5 + " failed: " + ex.getMessage());
    }
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

  private void failed(PendingUpdate p, int status, String message) {
    try {
      p.installFailed(status, message);
    } catch (IOException ignored) {
      // the state stays installing; the next start turns it back into downloaded
    }
    present();
  }

  /** The last installation's outcome (JSON, see PendingUpdate#installOutcome), or null; sent on the next heartbeat. */
  public String installOutcome() {
    PendingUpdate p = pending;
    try {
      return p == null ? null : p.installOutcome();
    } catch (IOException e) {
      return null;
    }
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

  /** The engine's executor as the presenter's {@link Scheduler}: the presenter stays on one thread. */
  public Scheduler scheduler() {
    return (task, delayMs) -> {
      ScheduledFuture<?> f = executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
      return () -> f.cancel(false);
    };
  }

  /** Runs {@code task} on the engine's thread (the presenter's callbacks from the UI thread). */
  public void post(Runnable task) {
    executor.execute(task);
  }

  /** Queues a report (synchronously persisted when {@code sync}) and delivers it in the background. */
  public void report(ExceptionReport report, boolean sync) {
    Runnable add = () -> {
      try {
        exceptions.enqueue(report);
      } catch (IOException e) {
        logger.log(Level.ERROR, "exception queue not saved: " + e.getMessage());
      }
      deliverExceptions();
    };
    if (sync && exceptions != null) add.run();
    else executor.execute(add);
  }

  public void setMaxExceptionQueueSize(int size) {
    config.maxExceptionQueue = size;
    executor.execute(() -> {
      try {
        if (exceptions != null) exceptions.setMaxSize(size);
      } catch (IOException e) {
        logger.log(Level.ERROR, "exception queue not saved: " + e.getMessage());
      }
    });
  }

  private synchronized void deliverExceptions() {
    if (delivering || stopped || exceptions == null || !registered) return;
    delivering = true;
    executor.execute(() -> {
      long wait;
      try {
        wait = exceptions.deliver();
      } catch (IOException e) {
        wait = 60_000;
      }
      synchronized (this) {
        delivering = false;
      }
      if (wait != ExceptionQueue.EMPTY && !stopped) {
        executor.schedule(this::deliverExceptions, wait, TimeUnit.MILLISECONDS);
      }
    });
  }

  /** Pairs for the registration body and reports, as the TS client sends them. */
  public static List<Map<String, Object>> pairs(Map<String, String> map) {
    List<Map<String, Object>> out = new java.util.ArrayList<>();
    for (Map.Entry<String, String> e : map.entrySet()) out.add(Json.object("key", e.getKey(), "value", e.getValue()));
    return out;
  }

  /** The status the server last gave: "enabled", "disabled", or null before registration. */
  public String status() {
    return status;
  }
}
