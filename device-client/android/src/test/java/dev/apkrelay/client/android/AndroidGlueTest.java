package dev.apkrelay.client.android;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;
import static org.robolectric.Shadows.shadowOf;

import android.Manifest;
import android.app.Activity;
import android.app.AlertDialog;
import android.app.Application;
import android.app.Notification;
import android.app.NotificationManager;
import android.content.Intent;
import android.content.pm.PackageInfo;
import android.content.pm.PackageInstaller;
import android.content.pm.PackageManager;
import android.net.Uri;
import android.os.Build;
import android.os.Handler;
import android.os.Looper;
import android.os.ParcelFileDescriptor;
import android.view.KeyEvent;
import android.view.View;
import dev.apkrelay.client.Client;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Scheduler;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.update.StrategyPresenter;
import dev.apkrelay.client.strategy.Strategies;
import dev.apkrelay.client.strategy.Strategy;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.Robolectric;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.shadow.api.Shadow;
import org.robolectric.shadows.ShadowAlertDialog;
import org.robolectric.shadows.ShadowNotificationManager;
import org.robolectric.util.ReflectionHelpers;

/**
 * The Android glue on Robolectric's framework, at the floor (26) and the target (34): what each
 * strategy shows or sends, the update provider, the PackageInstaller session, the installer's
 * confirmation, and start off the main thread. No emulator: this is the on-device evidence.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = {26, 34})
public class AndroidGlueTest {
  static final byte[] APK = "not really an apk, but these bytes are what is hashed".getBytes();

  Application app;
  String pkg;
  final List<String> log = new ArrayList<>();
  final Logger logger = (level, message) -> log.add(level + " " + message);
  AndroidUi ui;

  @Before
  public void setUp() {
    app = RuntimeEnvironment.getApplication();
    pkg = app.getPackageName();
    Running.activity(null);
    Running.engine(null);
    ui = new AndroidUi(app, android.R.drawable.sym_def_app_icon, logger, Runnable::run, new SessionInstaller(app, logger));
  }

  @After
  public void tearDown() {
    Running.activity(null);
    Running.engine(null);
  }

  static String hex(String algorithm, byte[] bytes) throws Exception {
    return SessionInstaller.hex(MessageDigest.getInstance(algorithm).digest(bytes));
  }

  VersionEvent event(byte[] bytes) throws Exception {
    return new VersionEvent(pkg, "apk-2", hex("MD5", bytes), hex("SHA-256", bytes), 1000, "2.0", bytes.length,
        "https://h/download", null);
  }

  File updateFile(VersionEvent e) throws Exception {
    File dir = ApkProvider.directory(app.getNoBackupFilesDir());
    dir.mkdirs();
    File f = new File(dir, "update-" + e.md5 + ".apk");
    Files.write(f.toPath(), APK);
    return f;
  }

  void idleMain() {
    shadowOf(Looper.getMainLooper()).idle();
  }

  Activity activity() {
    Activity a = Robolectric.buildActivity(Activity.class).setup().get();
    Running.activity(a);
    return a;
  }

  @Test
  public void statusBarNotificationOnItsChannelStaysUntilCancelled() {
    shadowOf(app).grantPermissions(Manifest.permission.POST_NOTIFICATIONS);
    ui.showNotification("New version of Demo", "Click to Update", () -> { });
    NotificationManager nm = (NotificationManager) app.getSystemService(NotificationManager.class);
    ShadowNotificationManager shadow = shadowOf(nm);
    assertNotNull(nm.getNotificationChannel(AndroidUi.CHANNEL));
    assertEquals(1, shadow.getAllNotifications().size());
    Notification n = shadow.getAllNotifications().get(0);
    assertEquals(AndroidUi.CHANNEL, n.getChannelId());
    assertEquals("New version of Demo", n.extras.getCharSequence(Notification.EXTRA_TITLE).toString());
    assertEquals("Click to Update", n.extras.getCharSequence(Notification.EXTRA_TEXT).toString());
    assertTrue("ongoing", (n.flags & Notification.FLAG_ONGOING_EVENT) != 0);
    assertEquals("not auto-cancelled", 0, n.flags & Notification.FLAG_AUTO_CANCEL);
    Intent click = shadowOf(n.contentIntent).getSavedIntent();
    assertEquals(UpdateReceiver.ACTION_UPDATE, click.getAction());
    assertEquals(UpdateReceiver.class.getName(), click.getComponent().getClassName());
    ui.cancelNotification();
    assertEquals(0, shadow.getAllNotifications().size());
  }

  @Test
  public void withoutPostNotificationsStatusBarFallsBackToAPopup() {
    assumeTrue("POST_NOTIFICATIONS exists from API 33", Build.VERSION.SDK_INT >= 33);
    shadowOf(app).denyPermissions(Manifest.permission.POST_NOTIFICATIONS);
    activity();
    ui.showNotification("New version of Demo", "Click to Update", () -> { });
    idleMain();
    NotificationManager nm = (NotificationManager) app.getSystemService(NotificationManager.class);
    assertEquals(0, shadowOf(nm).getAllNotifications().size());
    AlertDialog d = (AlertDialog) ShadowAlertDialog.getLatestAlertDialog();
    assertTrue(d.isShowing());
    assertTrue(log.get(0).startsWith("WARN STATUS_BAR: notifications are not allowed"));
    ui.cancelNotification(); // withdrawn: the fallback popup goes too
    idleMain();
    assertFalse(d.isShowing());
  }

  @Test
  public void friendlyPopupHasBothButtonsAndBlocksBackAndOutsideTouches() {
    activity();
    List<String> calls = new ArrayList<>();
    assertTrue(ui.showPopup("A new version", "Not Now", "Update", () -> calls.add("not now"), () -> calls.add("update")));
    idleMain();
    AlertDialog d = (AlertDialog) ShadowAlertDialog.getLatestAlertDialog();
    assertTrue(d.isShowing());
    assertFalse(shadowOf(d).isCancelable());
    assertFalse(shadowOf(d).isCancelableOnTouchOutside());
    d.dispatchKeyEvent(new KeyEvent(KeyEvent.ACTION_DOWN, KeyEvent.KEYCODE_BACK));
    d.dispatchKeyEvent(new KeyEvent(KeyEvent.ACTION_UP, KeyEvent.KEYCODE_BACK));
    d.onBackPressed();
    idleMain();
    assertTrue("back does not dismiss it", d.isShowing());
    assertEquals("Not Now", d.getButton(AlertDialog.BUTTON_NEGATIVE).getText().toString());
    assertEquals("Update", d.getButton(AlertDialog.BUTTON_POSITIVE).getText().toString());
    d.getButton(AlertDialog.BUTTON_NEGATIVE).performClick();
    idleMain();
    assertEquals(List.of("not now"), calls);
    assertFalse(d.isShowing());
    assertTrue(ui.showPopup("A new version", "Not Now", "Update", () -> calls.add("not now"), () -> calls.add("update")));
    idleMain();
    AlertDialog again = (AlertDialog) ShadowAlertDialog.getLatestAlertDialog();
    again.getButton(AlertDialog.BUTTON_POSITIVE).performClick();
    idleMain();
    assertEquals(List.of("not now", "update"), calls);
  }

  @Test
  public void annoyingPopupHasOneButtonAndNeedsAnActivity() {
    assertFalse("no current activity: BadTokenException avoided", ui.showPopup("Update now", null, "Update", null, () -> { }));
    activity();
    List<String> calls = new ArrayList<>();
    assertTrue(ui.showPopup("Update now", null, "Update", null, () -> calls.add("update")));
    idleMain();
    AlertDialog d = (AlertDialog) ShadowAlertDialog.getLatestAlertDialog();
    assertFalse(shadowOf(d).isCancelable());
    assertEquals(View.GONE, d.getButton(AlertDialog.BUTTON_NEGATIVE).getVisibility());
    assertEquals(View.GONE, d.getButton(AlertDialog.BUTTON_NEUTRAL).getVisibility());
    d.onBackPressed();
    idleMain();
    assertTrue(d.isShowing());
    ui.hidePopup(); // withdrawn
    idleMain();
    assertFalse(d.isShowing());
    assertTrue(calls.isEmpty());
  }

  List<Intent> broadcasts(String action) {
    return shadowOf(app).getBroadcastIntents().stream().filter(i -> action.equals(i.getAction()))
        .collect(Collectors.toList());
  }

  @Test
  public void customSendsApplyEvery30sWithAContentUriThenGiveupOnce() throws Exception {
    Handler main = new Handler(Looper.getMainLooper());
    Scheduler scheduler = (task, ms) -> {
      main.postDelayed(task, ms);
      return () -> main.removeCallbacks(task);
    };
    Strategies strategies = new Strategies();
    strategies.set(Strategy.CUSTOM);
    StrategyPresenter presenter = new StrategyPresenter(strategies, ui, scheduler, logger, pkg, "Demo");
    VersionEvent e = event(APK);
    presenter.present(e, updateFile(e).getPath());
    assertEquals(1, broadcasts(pkg + ".svc.APPLY").size());
    shadowOf(Looper.getMainLooper()).idleFor(Duration.ofSeconds(29));
    assertEquals(1, broadcasts(pkg + ".svc.APPLY").size());
    shadowOf(Looper.getMainLooper()).idleFor(Duration.ofSeconds(1));
    assertEquals(2, broadcasts(pkg + ".svc.APPLY").size());
    shadowOf(Looper.getMainLooper()).idleFor(Duration.ofSeconds(30));
    List<Intent> apply = broadcasts(pkg + ".svc.APPLY");
    assertEquals(3, apply.size());
    for (Intent i : apply) {
      assertEquals("explicit: the app itself", pkg, i.getPackage());
      assertEquals("content://" + pkg + "/update-" + e.md5 + ".apk", i.getStringExtra("uri"));
    }
    presenter.withdraw(true);
    shadowOf(Looper.getMainLooper()).idleFor(Duration.ofMinutes(5));
    assertEquals(3, broadcasts(pkg + ".svc.APPLY").size());
    List<Intent> giveup = broadcasts(pkg + ".svc.GIVEUP");
    assertEquals(1, giveup.size());
    assertEquals(pkg, giveup.get(0).getPackage());
  }

  @Test
  public void theProviderServesOnlyDownloadedUpdatesReadOnly() throws Exception {
    ApkProvider provider = Robolectric.setupContentProvider(ApkProvider.class, pkg);
    VersionEvent e = event(APK);
    File f = updateFile(e);
    Uri uri = Uri.parse(ui.uriFor(f.getPath()));
    assertEquals(pkg, uri.getAuthority());
    assertEquals(ApkProvider.MIME, provider.getType(uri));
    try (InputStream in = new ParcelFileDescriptor.AutoCloseInputStream(provider.openFile(uri, "r"))) {
      assertArrayEquals(APK, in.readAllBytes());
    }
    assertThrows(SecurityException.class, () -> provider.openFile(uri, "w"));
    assertThrows(FileNotFoundException.class, () -> provider.openFile(Uri.parse("content://" + pkg + "/pending-update"), "r"));
    assertThrows(FileNotFoundException.class,
        () -> provider.openFile(Uri.parse("content://" + pkg + "/update-00000000000000000000000000000000.apk"), "r"));
  }

  void archive(File f) {
    PackageInfo archive = new PackageInfo();
    archive.packageName = pkg;
    archive.versionCode = 1000;
    if (Build.VERSION.SDK_INT >= 28) archive.setLongVersionCode(1000);
    archive.signatures = new android.content.pm.Signature[] {new android.content.pm.Signature(new byte[] {1})};
    shadowOf(app.getPackageManager()).getInternalMutablePackageInfo(pkg).signatures = archive.signatures;
    shadowOf(app.getPackageManager()).setPackageArchiveInfo(f.getPath(), archive);
    shadowOf(app.getPackageManager()).setCanRequestPackageInstalls(true);
  }

  @SuppressWarnings("unchecked")
  Map<Integer, PackageInstaller.Session> sessions() {
    return (Map<Integer, PackageInstaller.Session>) ReflectionHelpers.getField(
        shadowOf(app.getPackageManager().getPackageInstaller()), "sessions");
  }

  @Test
  public void theVerifiedFileIsCommittedInAPackageInstallerSession() throws Exception {
    VersionEvent e = event(APK);
    File f = updateFile(e);
    archive(f);
    new SessionInstaller(app, logger).install(e, f.getPath());
    List<PackageInstaller.SessionInfo> all = app.getPackageManager().getPackageInstaller().getAllSessions();
    assertEquals(1, all.size());
    PackageInstaller.Session session = sessions().get(all.get(0).getSessionId());
    assertNotNull("committed with a status receiver", ReflectionHelpers.getField(Shadow.extract(session), "statusReceiver"));
  }

  @Test
  public void aFileChangedAfterVerificationIsNeverCommitted() throws Exception {
    VersionEvent e = event(APK);
    File f = updateFile(e);
    Files.write(f.toPath(), "tampered after the download was verified".getBytes());
    archive(f);
    SecurityException refused = assertThrows(SecurityException.class, () -> new SessionInstaller(app, logger).install(e, f.getPath()));
    assertTrue(refused.getMessage().contains("changed after verification"));
    for (PackageInstaller.Session s : sessions().values()) {
      assertNull("not committed", ReflectionHelpers.getField(Shadow.extract(s), "statusReceiver"));
    }
  }

  @Test
  public void withoutInstallUnknownAppsNoSessionIsCreated() throws Exception {
    VersionEvent e = event(APK);
    File f = updateFile(e);
    archive(f);
    shadowOf(app.getPackageManager()).setCanRequestPackageInstalls(false);
    activity();
    assertThrows(IllegalStateException.class, () -> new SessionInstaller(app, logger).install(e, f.getPath()));
    assertTrue(app.getPackageManager().getPackageInstaller().getAllSessions().isEmpty());
  }


  @Test
  public void theInstallersConfirmationOpensFromTheForegroundOrWaitsInANotification() {
    shadowOf(app).grantPermissions(Manifest.permission.POST_NOTIFICATIONS); // denied: KioskSdkTest
    Running.engine(TestEngines.silent(app, logger));
    Intent confirm = new Intent("android.content.pm.action.CONFIRM_INSTALL");
    Intent status = new Intent(UpdateReceiver.ACTION_INSTALL_STATUS)
        .putExtra(PackageInstaller.EXTRA_STATUS, PackageInstaller.STATUS_PENDING_USER_ACTION)
        .putExtra(Intent.EXTRA_INTENT, confirm);
    new UpdateReceiver().onReceive(app, status); // in the background
    NotificationManager nm = (NotificationManager) app.getSystemService(NotificationManager.class);
    assertEquals(1, shadowOf(nm).getAllNotifications().size());
    Activity a = activity();
    new UpdateReceiver().onReceive(app, status); // in the foreground
    assertEquals(confirm.getAction(), shadowOf(a).getNextStartedActivity().getAction());
  }

  @Test
  public void startOffTheMainThreadIsRefusedWithTheLooperMessage() throws Exception {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        Client.start(app, 1, "key", "device", "http://push", "http://base", null);
      } catch (Throwable e) {
        thrown.set(e);
      }
    }, "worker");
    t.start();
    t.join();
    assertTrue(thrown.get() instanceof IllegalStateException);
    assertTrue(thrown.get().getMessage().contains("Can't create handler inside thread worker that has not called Looper.prepare()"));
  }
}
