package dev.apkrelay.client.android;

import android.app.Activity;
import android.app.PendingIntent;
import android.app.admin.DevicePolicyManager;
import android.content.Context;
import android.content.Intent;
import android.content.pm.PackageInfo;
import android.content.pm.PackageInstaller;
import android.content.pm.PackageManager;
import android.content.pm.Signature;
import android.net.Uri;
import android.os.Build;
import android.provider.Settings;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;
import java.util.TreeSet;
import org.codehaus.mojo.animal_sniffer.IgnoreJRERequirement;

/**
 * Installs a verified update through a {@link PackageInstaller} session (API 26+), as F-Droid's
 * SessionInstallManager and Headwind MDM's InstallUtils do: stale sessions abandoned, the archive
 * checked (same package, higher versionCode, the installed app's signing certificates: a mismatch
 * is refused here, named, instead of the OS's bare INSTALL_FAILED_UPDATE_INCOMPATIBLE), the APK copied into the session while it is hashed
 * again (MD5 and SHA-256 must equal the signed event's, or the session is abandoned), then
 * committed with an explicit, mutable status PendingIntent to {@link UpdateReceiver}, which
 * reports the OS's answer to the engine. A {@link SelfUpdate} mark is left before the commit, so
 * the replaced app is relaunched.
 *
 * <p>Silent where the platform allows it: a device owner commits without a prompt; on 31+ the
 * session asks for {@code USER_ACTION_NOT_REQUIRED} (honoured when the app holds
 * UPDATE_PACKAGES_WITHOUT_USER_ACTION and installed itself last), and on 34+ it requests update
 * ownership when the host app declares ENFORCE_UPDATE_OWNERSHIP. Otherwise the OS answers
 * STATUS_PENDING_USER_ACTION and the user confirms.
 *
 * <p>Calls above API 26 sit in small methods guarded by {@code Build.VERSION.SDK_INT} and marked
 * {@link IgnoreJRERequirement}, the only places Animal Sniffer's API-26 check is told to look away.
 */
public final class SessionInstaller {
  static final String EXTRA_MD5 = "dev.apkrelay.client.extra.MD5";
  private static final String ENFORCE_UPDATE_OWNERSHIP = "android.permission.ENFORCE_UPDATE_OWNERSHIP";

  private final Context context;
  private final Logger logger;

  public SessionInstaller(Context context, Logger logger) {
    this.context = context;
    this.logger = logger;
  }

  /** Whether this app may update itself without asking the user (device owner). */
  public boolean deviceOwner() {
    DevicePolicyManager dpm = (DevicePolicyManager) context.getSystemService(Context.DEVICE_POLICY_SERVICE);
    return dpm != null && dpm.isDeviceOwnerApp(context.getPackageName());
  }

  /** Commits a session with the file at {@code path}; the outcome arrives at UpdateReceiver. */
  public void install(VersionEvent event, String path) throws Exception {
    PackageManager pm = context.getPackageManager();
    boolean owner = deviceOwner();
    if (!owner && !pm.canRequestPackageInstalls()) {
      openUnknownSourcesSettings();
      throw new IllegalStateException("REQUEST_INSTALL_PACKAGES is not allowed for " + context.getPackageName()
          + ": the user must allow \"Install unknown apps\" for it");
    }
    File apk = new File(path);
    checkArchive(pm, apk);
    PackageInstaller installer = pm.getPackageInstaller();
    for (PackageInstaller.SessionInfo stale : installer.getMySessions()) {
      try {
        installer.abandonSession(stale.getSessionId());
      } catch (SecurityException ignored) {
        // already finished
      }
    }
    PackageInstaller.SessionParams params = new PackageInstaller.SessionParams(PackageInstaller.SessionParams.MODE_FULL_INSTALL);
    params.setAppPackageName(context.getPackageName());
    params.setSize(apk.length());
    params.setInstallReason(PackageManager.INSTALL_REASON_USER);
    if (Build.VERSION.SDK_INT >= 31) requireNoUserAction(params);
    if (Build.VERSION.SDK_INT >= 34 && context.checkSelfPermission(ENFORCE_UPDATE_OWNERSHIP) == PackageManager.PERMISSION_GRANTED) {
      requestUpdateOwnership(params);
    }
    int id = installer.createSession(params);
    PackageInstaller.Session session = installer.openSession(id);
    try {
      copyVerified(event, apk, session);
      SelfUpdate.committing(context);
      session.commit(statusReceiver(event, id).getIntentSender());
      logger.log(Level.INFO, "installer session " + id + " committed for " + event.md5
          + (owner ? " (device owner: silent)" : ""));
    } catch (Exception e) {
      session.abandon();
      SelfUpdate.take(context); // nothing was committed: no relaunch is owed
      throw e;
    } finally {
      session.close();
    }
  }

  /** Copies the APK into the session and hashes the very bytes written; refuses any difference. */
  private static void copyVerified(VersionEvent event, File apk, PackageInstaller.Session session)
      throws IOException, NoSuchAlgorithmException {
    MessageDigest md5 = MessageDigest.getInstance("MD5");
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new FileInputStream(apk);
         OutputStream out = session.openWrite("base.apk", 0, apk.length())) {
      byte[] buf = new byte[64 * 1024];
      int n;
      while ((n = in.read(buf)) > 0) {
        md5.update(buf, 0, n);
        sha256.update(buf, 0, n);
        out.write(buf, 0, n);
      }
      session.fsync(out);
    }
    String m = hex(md5.digest());
    String s = hex(sha256.digest());
    if (!m.equalsIgnoreCase(event.md5) || (event.sha256 != null && !s.equalsIgnoreCase(event.sha256))) {
      throw new SecurityException("the APK changed after verification (MD5 " + m + ", SHA-256 " + s
          + "): installation refused");
    }
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(String.format("%02x", x & 0xff));
    return sb.toString();
  }

  @SuppressWarnings("deprecation") // GET_SIGNATURES: its successor GET_SIGNING_CERTIFICATES is API 28
  private void checkArchive(PackageManager pm, File apk) throws Exception {
    PackageInfo archive = pm.getPackageArchiveInfo(apk.getPath(), PackageManager.GET_SIGNATURES);
    if (archive == null) throw new IllegalStateException("the downloaded file is not an APK the OS can parse");
    if (!context.getPackageName().equals(archive.packageName)) {
      throw new IllegalStateException("the APK is for " + archive.packageName + ", not " + context.getPackageName());
    }
    PackageInfo running = pm.getPackageInfo(context.getPackageName(), PackageManager.GET_SIGNATURES);
    Set<String> signer = signers(archive.signatures);
    Set<String> installed = signers(running.signatures);
    if (signer.isEmpty() || !signer.equals(installed)) {
      throw new SecurityException("the APK is signed by " + (signer.isEmpty() ? "no certificate" : signer)
          + ", not by the installed app's " + installed + " (SHA-256): installation refused");
    }
    long newer = Build.VERSION.SDK_INT >= 28 ? longVersionCode(archive) : archive.versionCode;
    long now = Build.VERSION.SDK_INT >= 28 ? longVersionCode(running) : running.versionCode;
    if (newer <= now) {
      throw new IllegalStateException("the APK's versionCode " + newer + " is not above the installed " + now);
    }
  }

  /** The SHA-256 of each signing certificate, in hex. */
  static Set<String> signers(Signature[] signatures) throws NoSuchAlgorithmException {
    Set<String> out = new TreeSet<>();
    if (signatures == null) return out;
    for (Signature s : signatures) out.add(hex(MessageDigest.getInstance("SHA-256").digest(s.toByteArray())));
    return out;
  }

  private PendingIntent statusReceiver(VersionEvent event, int sessionId) {
    Intent status = new Intent(context, UpdateReceiver.class)
        .setAction(UpdateReceiver.ACTION_INSTALL_STATUS)
        .putExtra(EXTRA_MD5, event.md5);
    // Mutable (the OS adds EXTRA_STATUS), explicit (an implicit mutable intent throws on 34).
    int flags = PendingIntent.FLAG_UPDATE_CURRENT | (Build.VERSION.SDK_INT >= 31 ? PendingIntent.FLAG_MUTABLE : 0);
    return PendingIntent.getBroadcast(context, sessionId, status, flags);
  }

  private void openUnknownSourcesSettings() {
    Activity a = Running.activity();
    if (a == null) {
      logger.log(Level.WARN, "installation needs \"Install unknown apps\": it is asked when an activity is current");
      return;
    }
    a.startActivity(new Intent(Settings.ACTION_MANAGE_UNKNOWN_APP_SOURCES,
        Uri.parse("package:" + context.getPackageName())));
  }

  @IgnoreJRERequirement // API 28, called only when SDK_INT >= 28
  private static long longVersionCode(PackageInfo info) {
    return info.getLongVersionCode();
  }

  @IgnoreJRERequirement // API 31, called only when SDK_INT >= 31
  private static void requireNoUserAction(PackageInstaller.SessionParams params) {
    params.setRequireUserAction(PackageInstaller.SessionParams.USER_ACTION_NOT_REQUIRED);
  }

  @IgnoreJRERequirement // API 34, called only when SDK_INT >= 34
  private static void requestUpdateOwnership(PackageInstaller.SessionParams params) {
    params.setRequestUpdateOwnership(true);
  }
}
