package dev.apkrelay.client.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.robolectric.Shadows.shadowOf;

import android.Manifest;
import android.app.Activity;
import android.app.Application;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.app.job.JobInfo;
import android.app.job.JobScheduler;
import android.content.ComponentName;
import android.content.Intent;
import android.content.pm.ActivityInfo;
import android.content.pm.PackageInfo;
import android.content.pm.PackageInstaller;
import android.content.pm.PackageManager;
import android.content.pm.Signature;
import android.os.Build;
import dev.apkrelay.client.Client;
import dev.apkrelay.client.core.Engine;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.File;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.Robolectric;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.util.ReflectionHelpers;

/**
 * Issue 32: what keeps an unattended device updated, on every API level whose rules differ (26
 * floor; 28 long versionCode; 31 USER_ACTION_NOT_REQUIRED and PendingIntent mutability; 33
 * POST_NOTIFICATIONS; 34 update ownership and implicit-mutable refusal; 35). Robolectric's shadows
 * do not enforce the platform's rules (mutability, notification permission, session parameters),
 * so each test asserts them on what the library built. Only the tests that depend on the level
 * are here; the rest of the glue runs at 26 and 34 (AndroidGlueTest).
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = {26, 28, 31, 33, 34, 35}, shadows = RecordingPackageInstaller.class)
public class KioskSdkTest {
  /** PackageInstaller.SessionParams.USER_ACTION_NOT_REQUIRED (API 31), from the platform's docs. */
  static final int USER_ACTION_NOT_REQUIRED = 2;
  static final byte[] APK = "the bytes of a verified update".getBytes();
  static final Signature OURS = new Signature(new byte[] {0x30, 0x01, 0x01});
  static final Signature THEIRS = new Signature(new byte[] {0x30, 0x01, 0x02});

  Application app;
  String pkg;
  final List<String> log = new ArrayList<>();
  final Logger logger = (level, message) -> log.add(level + " " + message);
  final BlockingQueue<String> installs = new LinkedBlockingQueue<>();
  Engine engine;

  @Before
  public void setUp() {
    app = RuntimeEnvironment.getApplication();
    pkg = app.getPackageName();
    RecordingPackageInstaller.CREATED.clear();
    Running.activity(null);
    Running.engine(null);
    Running.holdConfirmation(null);
  }

  @After
  public void tearDown() throws Exception {
    Running.activity(null);
    Running.engine(null);
    Running.holdConfirmation(null);
    if (engine != null) {
      engine.stop();
      assertTrue(engine.awaitStopped(5_000));
    }
  }

  static String hex(String algorithm, byte[] bytes) throws Exception {
    return SessionInstaller.hex(MessageDigest.getInstance(algorithm).digest(bytes));
  }

  VersionEvent event() throws Exception {
    return new VersionEvent(pkg, "apk-2", hex("MD5", APK), hex("SHA-256", APK), 1000, "2.0", APK.length,
        "https://h/download", null);
  }

  /** The downloaded file, an archive the "OS" reads as version 1000 signed by {@code signer}. */
  File downloaded(VersionEvent e, Signature signer) throws Exception {
    File dir = ApkProvider.directory(app.getNoBackupFilesDir());
    dir.mkdirs();
    File f = new File(dir, "update-" + e.md5 + ".apk");
    Files.write(f.toPath(), APK);
    PackageInfo archive = new PackageInfo();
    archive.packageName = pkg;
    archive.versionCode = 1000;
    if (Build.VERSION.SDK_INT >= 28) archive.setLongVersionCode(1000);
    archive.signatures = new Signature[] {signer};
    shadowOf(app.getPackageManager()).setPackageArchiveInfo(f.getPath(), archive);
    shadowOf(app.getPackageManager()).setCanRequestPackageInstalls(true);
    PackageInfo installed = shadowOf(app.getPackageManager()).getInternalMutablePackageInfo(pkg);
    installed.signatures = new Signature[] {OURS};
    return f;
  }

  @Test
  public void theSessionAsksForNoUserActionWithItsPackageAndSizeAndAMutableExplicitStatusIntent() throws Exception {
    VersionEvent e = event();
    File f = downloaded(e, OURS);
    new SessionInstaller(app, logger).install(e, f.getPath());
    assertEquals(1, RecordingPackageInstaller.CREATED.size());
    PackageInstaller.SessionParams params = RecordingPackageInstaller.CREATED.get(0);
    assertEquals(pkg, ReflectionHelpers.getField(params, "appPackageName"));
    assertEquals((long) APK.length, (long) ReflectionHelpers.<Long>getField(params, "sizeBytes"));
    assertEquals(PackageInstaller.SessionParams.MODE_FULL_INSTALL, (int) ReflectionHelpers.<Integer>getField(params, "mode"));
    if (Build.VERSION.SDK_INT >= 31) {
      assertEquals("silent where the OS allows it", USER_ACTION_NOT_REQUIRED,
          (int) ReflectionHelpers.<Integer>getField(params, "requireUserAction"));
    }
    int sessionId = app.getPackageManager().getPackageInstaller().getAllSessions().get(0).getSessionId();
    Intent status = new Intent(app, UpdateReceiver.class).setAction(UpdateReceiver.ACTION_INSTALL_STATUS);
    PendingIntent pi = PendingIntent.getBroadcast(app, sessionId, status,
        PendingIntent.FLAG_NO_CREATE | (Build.VERSION.SDK_INT >= 31 ? PendingIntent.FLAG_MUTABLE : 0));
    assertNotNull("a mutable status PendingIntent for the session (a lookup with FLAG_MUTABLE finds it)", pi);
    int flags = shadowOf(pi).getFlags();
    assertEquals("never immutable: the OS writes EXTRA_STATUS into it", 0, flags & PendingIntent.FLAG_IMMUTABLE);
    if (Build.VERSION.SDK_INT >= 31) {
      assertTrue("FLAG_MUTABLE, required from 31", (flags & PendingIntent.FLAG_MUTABLE) != 0);
    }
    Intent saved = shadowOf(pi).getSavedIntent();
    assertEquals("explicit (implicit + mutable throws on 34)", new ComponentName(app, UpdateReceiver.class),
        saved.getComponent());
    assertEquals(e.md5, saved.getStringExtra(SessionInstaller.EXTRA_MD5));
    assertTrue("the relaunch mark is left before the commit", SelfUpdate.mark(app).exists());
  }

  @Test
  public void anApkSignedByAnotherKeyIsRefusedBeforeAnySession() throws Exception {
    VersionEvent e = event();
    File f = downloaded(e, THEIRS);
    SecurityException refused = assertThrows(SecurityException.class,
        () -> new SessionInstaller(app, logger).install(e, f.getPath()));
    assertTrue(refused.getMessage(), refused.getMessage().contains("not by the installed app's"));
    assertTrue(refused.getMessage(), refused.getMessage().endsWith("(SHA-256): installation refused"));
    assertEquals(List.of(), RecordingPackageInstaller.CREATED);
    assertFalse(SelfUpdate.mark(app).exists());
  }

  /** An engine whose update {@code e} is downloaded, not applied; its "OS" records installs. */
  Engine engineWithDownloaded(VersionEvent e) throws Exception {
    File dir = ApkProvider.directory(app.getNoBackupFilesDir());
    FileStorage storage = new FileStorage(dir);
    storage.write("pending-update", Json.stringify(Json.object("event", e.toJson(), "state", "DOWNLOADED",
        "remindAt", 0)));
    Engine.Config c = TestEngines.config(pkg);
    c.installedMd5 = "11111111111111111111111111111111";
    Engine en = new Engine(c, null, storage, Clock.SYSTEM, logger, new Engine.Presenter() {
      @Override public void present(VersionEvent event, String location) { }
      @Override public void withdraw(boolean gaveUp) { }
      @Override public void install(VersionEvent event, String location) { installs.add(event.md5); }
    }, Executors.newSingleThreadScheduledExecutor(), HashMap::new);
    en.start();
    return en;
  }

  Map<String, Object> outcomeAfter(Intent status) throws Exception {
    new UpdateReceiver().onReceive(app, status);
    long deadline = System.currentTimeMillis() + 20_000;
    while (engine.installOutcome() == null && System.currentTimeMillis() < deadline) Thread.sleep(20);
    return Json.parseObject(engine.installOutcome());
  }

  Intent status(String md5, int code, String message) {
    return new Intent(app, UpdateReceiver.class).setAction(UpdateReceiver.ACTION_INSTALL_STATUS)
        .putExtra(SessionInstaller.EXTRA_MD5, md5)
        .putExtra(PackageInstaller.EXTRA_STATUS, code)
        .putExtra(PackageInstaller.EXTRA_STATUS_MESSAGE, message);
  }

  void appliedThroughClient(VersionEvent e) throws Exception {
    engine = engineWithDownloaded(e);
    Running.engine(engine);
    long deadline = System.currentTimeMillis() + 20_000;
    while (!engine.applyUpdate() && System.currentTimeMillis() < deadline) Thread.sleep(20); // loaded
    assertEquals(e.md5, installs.poll(20, TimeUnit.SECONDS));
  }

  @Test
  public void theInstallersFailureStatusIsTheOutcomeWithTheOsStatusAndMessage() throws Exception {
    VersionEvent e = event();
    downloaded(e, OURS);
    appliedThroughClient(e);
    Map<String, Object> o = outcomeAfter(status(e.md5, PackageInstaller.STATUS_FAILURE_CONFLICT,
        "INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package signatures do not match"));
    assertEquals("failure", o.get("status"));
    assertEquals(5L, ((Number) o.get("osStatus")).longValue()); // STATUS_FAILURE_CONFLICT
    assertEquals("INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package signatures do not match", o.get("message"));
    assertEquals(e.md5, o.get("md5"));
  }

  @Test
  public void theInstallersSuccessStatusIsTheOutcome() throws Exception {
    VersionEvent e = event();
    downloaded(e, OURS);
    appliedThroughClient(e);
    Map<String, Object> o = outcomeAfter(status(e.md5, PackageInstaller.STATUS_SUCCESS, "INSTALL_SUCCEEDED"));
    assertEquals("success", o.get("status"));
    assertEquals(0L, ((Number) o.get("osStatus")).longValue());
    assertEquals(e.md5, o.get("md5"));
  }

  @Test
  public void withoutNotificationsTheConfirmationIsHeldUntilAnActivityIsCurrent() {
    if (Build.VERSION.SDK_INT >= 33) {
      shadowOf(app).denyPermissions(Manifest.permission.POST_NOTIFICATIONS);
    } else {
      shadowOf((NotificationManager) app.getSystemService(NotificationManager.class)).setNotificationsEnabled(false);
    }
    Running.engine(null);
    Intent confirm = new Intent("android.content.pm.action.CONFIRM_INSTALL");
    Intent pending = new Intent(UpdateReceiver.ACTION_INSTALL_STATUS)
        .putExtra(PackageInstaller.EXTRA_STATUS, PackageInstaller.STATUS_PENDING_USER_ACTION)
        .putExtra(Intent.EXTRA_INTENT, confirm);
    Running.engine(TestEngines.silent(app, logger));
    new UpdateReceiver().onReceive(app, pending); // in the background, nothing can be seen
    NotificationManager nm = (NotificationManager) app.getSystemService(NotificationManager.class);
    assertEquals("a notification the OS would drop is not posted", 0, shadowOf(nm).getAllNotifications().size());
    Activity a = Robolectric.buildActivity(Activity.class).setup().get();
    Client.setCurrentActivity(a);
    Intent started = shadowOf(a).getNextStartedActivity();
    assertNotNull("the held confirmation is shown at the next setCurrentActivity", started);
    assertEquals(confirm.getAction(), started.getAction());
    Client.setCurrentActivity(a);
    assertNull("shown once", shadowOf(a).getNextStartedActivity());
  }


  void launcherActivity() {
    ActivityInfo info = new ActivityInfo();
    info.packageName = pkg;
    info.name = "dev.apkrelay.demo.MainActivity";
    shadowOf(app.getPackageManager()).addActivityIfNotPresent(new ComponentName(pkg, info.name));
    shadowOf(app.getPackageManager()).addIntentFilterForActivity(new ComponentName(pkg, info.name),
        new android.content.IntentFilter(Intent.ACTION_MAIN) {{ addCategory(Intent.CATEGORY_LAUNCHER); }});
  }

  @Test
  public void afterItsOwnSelfUpdateTheAppIsRelaunchedAndTheCheckScheduled() throws Exception {
    launcherActivity();
    new ComebackReceiver().onReceive(app, new Intent(Intent.ACTION_MY_PACKAGE_REPLACED)); // no mark: a store's update
    assertNull("an update the library did not install relaunches nothing", shadowOf(app).getNextStartedActivity());
    SelfUpdate.committing(app);
    new ComebackReceiver().onReceive(app, new Intent(Intent.ACTION_MY_PACKAGE_REPLACED));
    Intent relaunch = shadowOf(app).getNextStartedActivity();
    assertNotNull("relaunched after the library's own install", relaunch);
    assertEquals(new ComponentName(pkg, "dev.apkrelay.demo.MainActivity"), relaunch.getComponent());
    assertTrue("a new task", (relaunch.getFlags() & Intent.FLAG_ACTIVITY_NEW_TASK) != 0);
    assertFalse("the mark is taken", SelfUpdate.mark(app).exists());
    JobInfo job = shadowOf((JobScheduler) app.getSystemService(JobScheduler.class)).getPendingJob(KeepAliveJob.JOB_ID);
    assertNotNull("the periodic check is scheduled", job);
    assertTrue(job.isPeriodic());
    assertEquals(15 * 60_000L, job.getIntervalMillis());
    assertTrue("kept across reboots", job.isPersisted());
    assertEquals(new ComponentName(app, KeepAliveJob.class), job.getService());
  }

  /** ServiceInfo.FOREGROUND_SERVICE_TYPE_DATA_SYNC (API 29), from the platform's docs. */
  static final int DATA_SYNC = 1;

  @Test
  public void theForegroundServiceModeIsADataSyncServiceThatStopsAtItsTimeLimit() {
    StreamService service = Robolectric.buildService(StreamService.class).create().startCommand(0, 7).get();
    org.robolectric.shadows.ShadowService shadow = shadowOf(service);
    android.app.Notification n = shadow.getLastForegroundNotification();
    assertNotNull("started in the foreground", n);
    assertEquals(StreamService.CHANNEL, n.getChannelId());
    assertTrue("ongoing", (n.flags & android.app.Notification.FLAG_ONGOING_EVENT) != 0);
    assertFalse(shadow.isForegroundStopped());
    if (Build.VERSION.SDK_INT >= 29) {
      assertEquals("declared type dataSync (required from 34)", DATA_SYNC,
          (int) ReflectionHelpers.<Integer>getField(shadow, "foregroundServiceType"));
    }
    service.onTimeout(7, DATA_SYNC); // API 35's 6-hour limit for dataSync
    assertTrue("stops itself at the time limit", shadow.isStoppedBySelf());
    assertEquals(7, shadow.getStopSelfId());
  }

  @Test
  public void bootSchedulesThePeriodicCheckOnce() {
    new ComebackReceiver().onReceive(app, new Intent(Intent.ACTION_BOOT_COMPLETED));
    new ComebackReceiver().onReceive(app, new Intent(Intent.ACTION_BOOT_COMPLETED));
    JobScheduler js = (JobScheduler) app.getSystemService(JobScheduler.class);
    assertEquals(1, js.getAllPendingJobs().size());
    assertNull("boot relaunches nothing", shadowOf(app).getNextStartedActivity());
  }
}
