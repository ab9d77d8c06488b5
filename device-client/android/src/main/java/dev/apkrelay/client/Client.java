package dev.apkrelay.client;

import android.app.Activity;
import android.content.Context;
import android.content.Intent;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.util.Log;
import dev.apkrelay.client.android.AndroidDeviceLog;
import dev.apkrelay.client.android.AndroidLogger;
import dev.apkrelay.client.android.AndroidScreenshots;
import dev.apkrelay.client.android.AndroidUi;
import dev.apkrelay.client.android.Comeback;
import dev.apkrelay.client.android.MainThreadPresenter;
import dev.apkrelay.client.android.ApkProvider;
import dev.apkrelay.client.android.Running;
import dev.apkrelay.client.android.SessionInstaller;
import dev.apkrelay.client.android.StreamService;
import dev.apkrelay.client.core.Engine;
import dev.apkrelay.client.core.StartParams;
import dev.apkrelay.client.core.delta.InstalledMd5;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.DeviceLog;
import dev.apkrelay.client.core.ports.DiskSpace;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.Screenshots;
import dev.apkrelay.client.core.ports.SpkiPins;
import dev.apkrelay.client.core.ports.UrlConnectionTransport;
import dev.apkrelay.client.core.queue.ChainingUncaughtHandler;
import dev.apkrelay.client.core.queue.ExceptionReport;
import dev.apkrelay.client.core.update.StrategyPresenter;
import dev.apkrelay.client.strategy.Strategies;
import dev.apkrelay.client.strategy.Strategy;
import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import javax.net.ssl.SSLSocketFactory;

/**
 * The library's API, spec section 4.4: {@code Client.start} in {@code Application.onCreate} on the
 * main thread, then strategies, idle, metadata and exceptions. Everything but {@code start} may be
 * called before it. Disk and network run on the library's own threads.
 */
public final class Client {
  private Client() {}

  public static final String TAG = AndroidLogger.TAG;
  /** Manifest meta-data read by the four-argument start. */
  public static final String META_PUSH_URL = "dev.apkrelay.PUSH_URL";
  public static final String META_BASE_URL = "dev.apkrelay.BASE_URL";
  public static final String META_PUSH_KEY = "dev.apkrelay.PUSH_KEY";
  /**
   * Optional: the server's public keys to trust, for a self-hosted server whose certificate no
   * platform CA signed ({@code sha256/<base64 SPKI SHA-256>}, comma-separated; docs/android-kiosk.md).
   */
  public static final String META_SERVER_PINS = "dev.apkrelay.SERVER_PINS";

  private static final Strategies STRATEGIES = new Strategies();
  private static final Map<String, String> METADATA = Collections.synchronizedMap(new LinkedHashMap<>());
  private static final Map<String, String> EXCEPTION_METADATA = Collections.synchronizedMap(new LinkedHashMap<>());
  private static final List<Object[]> EARLY = new ArrayList<>();
  private static volatile Engine engine;
  private static volatile Engine.Config config;
  private static volatile boolean idle = true;
  /** Set by start's worker once the running APK's MD5 is known; reports wait for it. */
  private static volatile boolean ready;
  private static volatile boolean capture = true;
  private static volatile int maxQueue = 50;
  private static volatile MainThreadPresenter presenter;
  private static volatile SSLSocketFactory serverTls;
  private static volatile ChainingUncaughtHandler handler;
  private static volatile DeviceLog deviceLog = DeviceLog.NONE;
  private static volatile Screenshots screenshots = Screenshots.NONE;

  /**
   * The spec's start: push and base URLs (and optionally the push key and the server pins) from
   * manifest meta-data. A blank value is unset (aapt compiles {@code android:value=""} to "").
   */
  public static void start(Context context, int launcherIconResId, String apiKey, String deviceId) {
    Bundle meta = context == null ? null : metaData(context);
    String pins = meta == null ? null : meta.getString(META_SERVER_PINS);
    if (pins != null && !pins.trim().isEmpty()) setServerPins(pins);
    start(context, launcherIconResId, apiKey, deviceId,
        meta == null ? null : meta.getString(META_PUSH_URL),
        meta == null ? null : meta.getString(META_BASE_URL),
        meta == null ? null : meta.getString(META_PUSH_KEY));
  }

  /**
   * Trusts only these public keys for the push and web hosts ({@code sha256/<base64>} pins, as
   * OkHttp writes them): for a self-hosted server with a self-signed or private-CA certificate.
   * Call before start; a malformed pin throws IllegalArgumentException naming it.
   */
  public static void setServerPins(String pins) {
    try {
      serverTls = SpkiPins.socketFactory(SpkiPins.parse(pins));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("TLS is not available: " + e.getMessage(), e);
    }
  }

  /**
   * Starts the library. Refused off the main thread; a second call is logged and ignored; missing
   * or empty arguments are all named in one {@link StartParams.StartParamsException}.
   *
   * @param pushPublicKey the server's push-signing key (SPKI DER, base64) to pin; null: the first
   *     key fetched from the push host is pinned (trust on first use)
   */
  public static synchronized void start(Context context, int launcherIconResId, String apiKey,
      String deviceId, String pushUrl, String baseUrl, String pushPublicKey) {
    if (Looper.myLooper() != Looper.getMainLooper()) {
      throw new IllegalStateException("Client.start must run on the main thread, in Application.onCreate:"
          + " Can't create handler inside thread " + Thread.currentThread().getName()
          + " that has not called Looper.prepare()");
    }
    if (engine != null) {
      Log.w(TAG, "Client.start was already called in this process: this call is ignored");
      return;
    }
    StartParams.require("context", context, "launcherIconResId", launcherIconResId, "apiKey", apiKey,
        "deviceId", deviceId, "pushUrl", pushUrl, "baseUrl", baseUrl);
    Context app = context.getApplicationContext() != null ? context.getApplicationContext() : context;
    Engine.Config c = new Engine.Config();
    c.packageName = app.getPackageName();
    c.apiKey = apiKey;
    c.deviceId = deviceId;
    c.pushUrl = pushUrl;
    c.baseUrl = baseUrl;
    c.pushKeySpki = pushPublicKey;
    c.maxExceptionQueue = maxQueue;
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "apkrelay");
      t.setDaemon(true);
      return t;
    });
    File dir = ApkProvider.directory(app.getNoBackupFilesDir());
    AndroidLogger logger = new AndroidLogger();
    Handler main = new Handler(Looper.getMainLooper());
    AndroidUi ui = new AndroidUi(app, launcherIconResId, logger, main::post, new SessionInstaller(app, logger));
    StrategyPresenter strategies = new StrategyPresenter(STRATEGIES, ui, MainThreadPresenter.scheduler(main), logger,
        c.packageName, String.valueOf(app.getApplicationInfo().loadLabel(app.getPackageManager())));
    MainThreadPresenter p = new MainThreadPresenter(main, strategies);
    FileStorage storage = new FileStorage(dir);
    String apk = app.getApplicationInfo().sourceDir;
    c.installedApk = () -> apk; // a delta's old file (issue 37)
    c.diskSpace = DiskSpace.of(dir);
    Engine e = new Engine(c, new UrlConnectionTransport(15_000, 30_000, 90_000, serverTls), storage,
        Clock.SYSTEM, logger, p, executor, Client::registration);
    strategies.onAccept(e::apply);
    strategies.reminder(e.reminder());
    presenter = p;
    deviceLog = new AndroidDeviceLog(app);
    screenshots = new AndroidScreenshots(Running::activity);
    config = c;
    engine = e;
    Running.engine(e);
    e.idle(idle);
    Comeback.register(app, e, logger);
    executor.execute(() -> {
      c.installedMd5 = md5(storage, apk);
      e.start();
      List<Object[]> early;
      synchronized (EARLY) {
        ready = true;
        early = new ArrayList<>(EARLY);
        EARLY.clear();
      }
      for (Object[] r : early) report((Throwable) r[0], (Boolean) r[1], castMap(r[2]), false);
    });
    if (capture) enableExceptionNotification();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> castMap(Object o) {
    return (Map<String, String>) o;
  }

  private static Bundle metaData(Context context) {
    try {
      ApplicationInfo info = context.getPackageManager()
          .getApplicationInfo(context.getPackageName(), PackageManager.GET_META_DATA);
      return info.metaData;
    } catch (PackageManager.NameNotFoundException e) {
      return null;
    }
  }

  private static Map<String, Object> registration() {
    Engine.Config c = config;
    Map<String, Object> body = Json.object("package", c.packageName, "deviceId", c.deviceId,
        "installedMd5", c.installedMd5, "lastDownloadedMd5", null, "strategy", STRATEGIES.name().name(),
        "device", Json.object("brand", Build.BRAND, "model", Build.MODEL,
            "osVersion", Build.VERSION.RELEASE, "sdkInt", Build.VERSION.SDK_INT));
    synchronized (METADATA) {
      body.put("metadata", Engine.pairs(METADATA));
    }
    return body;
  }

  /** The running APK's MD5, hashed once per path, size and modification time (InstalledMd5). */
  private static String md5(FileStorage storage, String path) {
    try {
      String md5 = InstalledMd5.of(storage, path);
      if (md5 == null) Log.w(TAG, "MD5 of the running APK unknown: no readable file at " + path);
      return md5;
    } catch (Exception e) {
      Log.w(TAG, "MD5 of the running APK unknown: " + e.getMessage());
      return null;
    }
  }

  public static void setCurrentStrategy(Strategy strategy) {
    STRATEGIES.set(strategy);
  }

  /** The current strategy's object: StatusBarStrategy, FriendlyPopUpStrategy, AnnoyingPopUpStrategy or CustomStrategy. */
  public static Object getCurrentStrategy() {
    return STRATEGIES.current();
  }

  /** Call in each Activity's onResume that may show a popup. */
  public static void setCurrentActivity(Activity current) {
    Running.activity(current);
    MainThreadPresenter p = presenter;
    if (current == null) return;
    // An installer confirmation that could not be shown (no notification permission, no shade).
    if (Running.showHeldConfirmation(current)) Log.i(TAG, "the installer's held confirmation is shown");
    if (p != null) p.activityChanged();
  }

  /**
   * Installs the downloaded update now, whatever the strategy: the call a kiosk or till makes with
   * nobody there (from CUSTOM's APPLY broadcast, a schedule of its own, or its admin screen). Silent
   * where the platform allows it (a device owner; on Android 12+ the installer of record holding
   * UPDATE_PACKAGES_WITHOUT_USER_ACTION, within the target-SDK rules of docs/android-kiosk.md);
   * otherwise the OS's confirmation is shown from the current activity, a notification, or, held,
   * at the next {@link #setCurrentActivity}. The outcome reaches the server on the next heartbeat;
   * an installation the OS never answers is offered again after 15 minutes, reported as failed.
   * Respects idle (false: nothing is installed).
   *
   * @return false when nothing is installed (not started, no update downloaded, or idle false)
   */
  public static boolean applyUpdate() {
    Engine e = engine;
    return e != null && e.applyUpdate();
  }

  /** See spec "Idle flag": false → nothing is shown, broadcast or installed until it is true again. */
  public static void idle(boolean value) {
    idle = value;
    Engine e = engine;
    if (e != null) e.idle(value);
  }

  /** Whether an update is downloaded but not applied; notifies the user again (respecting idle). */
  public static boolean hasPendingUpdate() {
    Engine e = engine;
    return e != null && e.hasPendingUpdate();
  }

  public static void addMetadata(String key, String value) {
    METADATA.put(StartParams.checkKey(key), String.valueOf(value));
  }

  public static void addExceptionMetadata(String key, String value) {
    EXCEPTION_METADATA.put(StartParams.checkKey(key), String.valueOf(value));
  }

  public static void sendAsyncException(Throwable error) {
    sendAsyncException(error, null);
  }

  /** A handled exception, delivered in the background with guaranteed delivery; not logged. */
  public static void sendAsyncException(Throwable error, Map<String, String> extra) {
    if (error == null) throw new IllegalArgumentException("sendAsyncException needs a Throwable");
    report(error, true, extra, false);
  }

  private static void report(Throwable error, boolean handled, Map<String, String> extra, boolean sync) {
    Engine e = engine;
    Engine.Config c = config;
    if (e == null || c == null || (!ready && !sync)) {
      synchronized (EARLY) {
        if (!ready) { // before start, or before start's worker knows the APK's MD5
          EARLY.add(new Object[] {error, handled, extra});
          return;
        }
      }
      e = engine; // ready was set meanwhile: start has run
      c = config;
    }
    Map<String, String> all;
    synchronized (METADATA) {
      all = new LinkedHashMap<>(METADATA);
    }
    synchronized (EXCEPTION_METADATA) {
      all.putAll(EXCEPTION_METADATA);
    }
    ExceptionReport r = ExceptionReport.of(ExceptionReport.stackLines(error), handled,
        Engine.pairs(extra == null ? Collections.<String, String>emptyMap() : extra), Engine.pairs(all),
        c.packageName, c.deviceId, c.installedMd5);
    if (sync) { // unhandled, on the dying thread: the log and the screen now, before it goes
      e.report(r.withAttachments(deviceLog.lastLines(DeviceLog.LINES), screenshots.jpeg()), true);
    } else { // handled: logcat off the caller's thread (maybe the main one)
      Engine en = e;
      e.post(() -> en.report(r.withAttachments(deviceLog.lastLines(DeviceLog.LINES), null), false));
    }
  }

  public static synchronized void enableExceptionNotification() {
    capture = true;
    if (engine == null) return;
    if (handler == null) handler = ChainingUncaughtHandler.install((thread, error) -> report(error, false, null, true));
    handler.setEnabled(true);
  }

  public static synchronized void disableExceptionNotification() {
    capture = false;
    if (handler != null) handler.setEnabled(false);
  }

  public static void setMaxExceptionQueueSize(int size) {
    if (size < 1) throw new IllegalArgumentException("the exception queue size must be at least 1");
    maxQueue = size;
    Engine e = engine;
    if (e != null) e.setMaxExceptionQueueSize(size);
  }

  /**
   * Opt-in: keeps the push stream open in the background with a foreground service
   * ({@link StreamService}, type {@code dataSync}), which the app must declare with its
   * permissions (docs/android-kiosk.md). Call from the foreground (Android 12+ refuses to start a
   * foreground service from the background); {@code false} stops it.
   */
  public static void keepStreamInBackground(Context context, boolean keep) {
    Intent service = new Intent(context, StreamService.class);
    if (keep) context.startForegroundService(service);
    else context.stopService(service);
  }

  /** The Activity last given to {@link #setCurrentActivity}, if it is still alive. */
  static Activity currentActivity() {
    return Running.activity();
  }

  /**
   * The last installation's outcome as JSON ({@code md5, versionCode, status: success|failure,
   * osStatus, message, at, reported}; {@code osStatus} is PackageInstaller's, -1 when the library
   * failed before the OS answered), or null. Kept in the library's storage and sent once, on the
   * next heartbeat, as its {@code lastInstall}.
   */
  public static String lastInstallOutcome() {
    Engine e = engine;
    return e == null ? null : e.installOutcome();
  }
}
