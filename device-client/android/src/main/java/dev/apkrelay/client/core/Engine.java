package dev.apkrelay.client.core;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.delta.DeltaFetch;
import dev.apkrelay.client.core.delta.Recompressors;
import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.DiskSpace;
import dev.apkrelay.client.core.ports.HttpTransport;
import dev.apkrelay.client.core.ports.InstalledApk;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.ports.Scheduler;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.protocol.RoutedEvent;
import dev.apkrelay.client.core.push.NoticeGate;
import dev.apkrelay.client.core.push.PushSession;
import dev.apkrelay.client.core.queue.ExceptionDelivery;
import dev.apkrelay.client.core.queue.ExceptionQueue;
import dev.apkrelay.client.core.queue.ExceptionReport;
import dev.apkrelay.client.core.sse.Backoff;
import dev.apkrelay.client.core.sse.SseEvent;
import dev.apkrelay.client.core.update.PendingUpdate;
import dev.apkrelay.client.core.update.StrategyPresenter;
import dev.apkrelay.client.core.update.UpdateDriver;
import dev.apkrelay.client.core.update.UpdatePresenter;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The running client without its platform: the push session on its own thread, downloads on
 * another, and on one scheduled executor the heartbeat, the update driver ({@link UpdateDriver}:
 * presenting, installing) and exception delivery ({@link ExceptionDelivery}). What the user sees
 * and the OS installs goes through {@link Presenter}; pushed events pass the {@link NoticeGate}
 * first. {@link #wake} (a periodic job, the network coming back) reconnects and beats at once.
 */
public final class Engine {
  /** The glue's side: strategies' UI and broadcasts, and the installer. Called on worker threads. */
  public interface Presenter extends UpdatePresenter {}

  /** What start knows: credentials, hosts, the running APK's MD5 (nullable), the pinned key (nullable). */
  public static final class Config {
    public String packageName;
    public String apiKey;
    public String deviceId;
    public String pushUrl;
    public String baseUrl;
    public String pushKeySpki;
    public String installedMd5;
    /** The running APK (a delta's old file); null or a null path: updates come as full downloads. */
    public InstalledApk installedApk;
    /** Free space where updates are stored, checked before a delta; null: not checked. */
    public DiskSpace diskSpace;
    public int maxExceptionQueue = 50;
    public int maxTamperedDownloads = 3;
    /** See {@link UpdateDriver#DEFAULT_INSTALL_ANSWER_TIMEOUT_MS}. */
    public long installAnswerTimeoutMs = UpdateDriver.DEFAULT_INSTALL_ANSWER_TIMEOUT_MS;
  }

  private final Config config;
  private final HttpTransport transport;
  private final Storage storage;
  private final Clock clock;
  private final Logger logger;
  private final ScheduledExecutorService executor;
  private final ScheduledExecutorService downloads = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "apkrelay-download");
    t.setDaemon(true);
    return t;
  });
  private final Object wakeLock = new Object();
  private boolean wakeRequested; // guarded by wakeLock
  private final Supplier<Map<String, Object>> registration;
  private final PushSession push;
  private final NoticeGate notices;
  private final ExceptionDelivery exceptions;
  private final UpdateDriver updates;
  private volatile boolean stopped;
  private volatile String status;
  private volatile Thread pushThread;

  /** @param registration the body of POST /api/v2/installations, read afresh for each use */
  public Engine(Config config, HttpTransport transport, Storage storage, Clock clock, Logger logger,
      Presenter presenter, ScheduledExecutorService executor, Supplier<Map<String, Object>> registration) {
    this.config = config;
    this.transport = transport;
    this.storage = storage;
    this.clock = clock;
    this.logger = logger;
    this.executor = executor;
    this.registration = registration;
    this.notices = new NoticeGate(storage, clock, config.packageName, config.deviceId);
    this.exceptions = new ExceptionDelivery(executor, logger, config.maxExceptionQueue);
    this.updates = new UpdateDriver(storage, clock, logger, presenter, executor, downloads,
        new Downloader(transport, storage), config.apiKey, config.deviceId);
    updates.installAnswerTimeoutMs(config.installAnswerTimeoutMs);
    this.push = new PushSession(transport, storage, clock, logger, Backoff.reconnectDefault(), config.pushUrl,
        config.apiKey, config.pushKeySpki, new PushSession.Listener() {
          @Override
          public void onEvent(SseEvent event, PushKey key, String accountId) throws IOException {
            route(notices.check(event, key, accountId));
          }

          @Override
          public void onStatus(String s) {
            status = s;
            exceptions.registered();
          }

          @Override
          public void onRegistrationFailed(String reason) {
            exceptions.registrationFailed(reason);
          }
        });
  }

  /** Reads the saved state and starts the push thread and exception delivery; off the main thread. */
  public void start() {
    executor.execute(() -> {
      try {
        ExceptionQueue queue = new ExceptionQueue(storage, transport, clock, logger, Backoff.exceptionDefault(),
            config.baseUrl, config.apiKey, exceptions.maxSize());
        updates.delta(deltaFetch());
        updates.start(new PendingUpdate(storage, logger, config.installedMd5, config.maxTamperedDownloads, clock));
        exceptions.start(queue);
      } catch (IOException | RuntimeException e) {
        logger.log(Level.ERROR, "start failed: " + e.getMessage());
        return;
      }
      Thread t = new Thread(this::pushLoop, "apkrelay-push");
      t.setDaemon(true);
      pushThread = t;
      t.start();
      scheduleHeartbeat();
    });
  }

  /** Deltas need the installed APK and its MD5 (issue 37); without them updates come whole. */
  private DeltaFetch deltaFetch() {
    String path = config.installedApk == null ? null : config.installedApk.path();
    if (path == null || config.installedMd5 == null || !new java.io.File(path).isFile()) {
      logger.log(Level.INFO, "updates come as full downloads: the installed APK is unknown");
      return null;
    }
    DiskSpace space = config.diskSpace != null ? config.diskSpace : () -> Long.MAX_VALUE;
    return new DeltaFetch(transport, storage, space, path, config.installedMd5, config.apiKey, config.deviceId, clock,
        Recompressors.bundled());
  }

  public void stop() {
    stopped = true;
    exceptions.stop();
    updates.stop();
    push.stop();
    executor.shutdownNow();
    downloads.shutdownNow();
    Thread t = pushThread;
    if (t != null) t.interrupt(); // out of its reconnect wait
  }

  /**
   * After {@link #stop}: waits up to {@code timeoutMs} for the executor's tasks and the push thread
   * to end, so nothing writes the engine's files any more (an app need not wait; a test deleting
   * them must). True when everything ended.
   */
  public boolean awaitStopped(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    if (!executor.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) return false;
    long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    if (!downloads.awaitTermination(left, TimeUnit.MILLISECONDS)) return false;
    Thread t = pushThread;
    if (t == null) return true;
    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    return !t.isAlive();
  }

  private void pushLoop() {
    while (!stopped) {
      long wait = push.connectOnce(registrationBody());
      try {
        synchronized (wakeLock) {
          long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait);
          long left = wait;
          while (!wakeRequested && !stopped && left > 0) {
            wakeLock.wait(left);
            left = TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime());
          }
          wakeRequested = false;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Something says the device may reach the server now (the network came back, the periodic job
   * ran, the device booted): a stream waiting out its backoff reconnects at once, and a registered
   * installation beats now (the outcome of an installation rides on it). From any thread.
   */
  public void wake() {
    synchronized (wakeLock) {
      wakeRequested = true;
      wakeLock.notifyAll();
    }
    if (stopped) return;
    try {
      executor.execute(() -> {
        if (push.registered()) heartbeat();
      });
    } catch (java.util.concurrent.RejectedExecutionException stoppedMeanwhile) {
      // stopped: nothing to wake
    }
  }

  private Map<String, Object> registrationBody() {
    Map<String, Object> body = registration.get();
    body.put("lastDownloadedMd5", updates.lastDownloadedMd5());
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
    try {
      Map<String, Object> outcome = updates.unreportedOutcome();
      if (outcome != null) body.put("lastInstall", outcome);
      if (push.heartbeat(body) && outcome != null) updates.outcomeReported(outcome);
    } catch (IOException e) {
      logger.log(Level.WARN, "installation outcome not kept: " + e.getMessage());
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
        updates.onVersion(r.version);
        return;
      case GIVEUP:
        updates.onGiveup(r.giveup);
        return;
      default:
        return;
    }
  }

  /** Spec "Idle flag": false withdraws everything; true presents a pending update again. */
  public void idle(boolean value) {
    updates.idle(value);
  }

  /** Spec: downloaded but not applied; notifies again (respecting idle). */
  public boolean hasPendingUpdate() {
    return updates.hasPendingUpdate();
  }

  /** The user accepted (notification, Update) or custom code applies: hash again, then install. */
  public void apply() {
    updates.apply();
  }

  /**
   * The app's own call ({@code Client.applyUpdate}): installs the downloaded update now, whatever
   * the strategy. False (nothing done) when no update is downloaded and not applied, or idle is
   * false.
   */
  public boolean applyUpdate() {
    if (!updates.applicable()) return false;
    updates.apply();
    return true;
  }

  /** The OS's answer to a committed session (see {@link UpdateDriver#installResult}). */
  public void installResult(String md5, boolean success, int status, String message) {
    updates.installResult(md5, success, status, message);
  }

  /** The last installation's outcome (JSON, see PendingUpdate#installOutcome), or null; sent on the next heartbeat. */
  public String installOutcome() {
    return updates.installOutcome();
  }

  /** FRIENDLY_POPUP's Not Now kept in the pending update's record (survives a restart). */
  public StrategyPresenter.Reminder reminder() {
    return updates.reminder();
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
    exceptions.report(report, sync);
  }

  public void setMaxExceptionQueueSize(int size) {
    config.maxExceptionQueue = size;
    exceptions.setMaxSize(size);
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
