package dev.apkrelay.client.core.stack;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;
import static org.robolectric.Shadows.shadowOf;

import android.app.Application;
import android.content.Context;
import android.content.ContextWrapper;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageInfo;
import android.os.Bundle;
import dev.apkrelay.client.Client;
import dev.apkrelay.client.android.Running;
import dev.apkrelay.client.core.Engine;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.HttpReply;
import dev.apkrelay.client.core.ports.HttpRequest;
import dev.apkrelay.client.core.ports.UrlConnectionTransport;
import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.shadows.ShadowLog;

/**
 * Issue 32, must-hold 5: {@code Client.start}'s own wiring, not the core's: the four-argument
 * start reads the hosts and the server pin from the manifest meta-data (the push key left blank,
 * as a Cordova app installed without it has), builds the engine with the platform's transport and
 * storage, and registers on a real stack (ops/dev/stack.ts) over HTTPS trusted by the pin alone.
 * Robolectric at 34 (the library's target); skipped where the stack cannot run, failed instead
 * when build.sh requires it.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 34)
public class ClientStartStackTest {
  static final Path CHECKOUT = Paths.get(System.getProperty("user.dir")).resolve("../..").normalize();
  static StackProcess stack;
  static String unavailable;

  @BeforeClass
  public static void startStack() throws Exception {
    unavailable = StackProcess.unavailable(CHECKOUT);
    if ("required".equals(System.getProperty("apkrelay.stackTest"))) {
      assertNull("the stack test is required (-Dapkrelay.stackTest=required)", unavailable);
    }
    if (unavailable != null) return;
    File log = new File("target/client-start-stack.log");
    log.getParentFile().mkdirs();
    stack = new StackProcess(CHECKOUT, log, 2);
    Map<String, Object> r = stack.command("upload " + CHECKOUT.resolve("test/fixtures/apks/version-1.apk") + " current",
        "uploaded", 120);
    assertEquals("deploy successful", r.get("message"));
  }

  @AfterClass
  public static void stopStack() throws Exception {
    Engine e = Running.engine();
    if (e != null) {
      e.stop();
      assertTrue(e.awaitStopped(30_000));
    }
    if (stack != null) {
      stack.close();
      assertEquals("the stack's exit status (target/client-start-stack.log)", 0, stack.exitValue());
    }
  }

  @Test
  public void startFromManifestMetaDataRegistersOnARealStack() throws Exception {
    assumeTrue("ClientStartStackTest skipped: " + unavailable, unavailable == null);
    ShadowLog.stream = System.out; // the library's log lines, in the test's report when it fails
    Application app = RuntimeEnvironment.getApplication();
    Bundle meta = new Bundle();
    meta.putString(Client.META_PUSH_URL, stack.url("push"));
    meta.putString(Client.META_BASE_URL, stack.url("web"));
    meta.putString(Client.META_PUSH_KEY, ""); // aapt's android:value="": not pinned
    meta.putString(Client.META_SERVER_PINS, stack.pin());
    // The app is the fixtures' package (the one uploaded), with the meta-data in its manifest.
    PackageInfo info = new PackageInfo();
    info.packageName = StackTest.PACKAGE;
    info.applicationInfo = new ApplicationInfo(app.getApplicationInfo());
    info.applicationInfo.packageName = StackTest.PACKAGE;
    info.applicationInfo.metaData = meta;
    shadowOf(app.getPackageManager()).installPackage(info);
    Context sample = new ContextWrapper(app) {
      @Override public String getPackageName() { return StackTest.PACKAGE; }
      @Override public Context getApplicationContext() { return this; }
    };

    Client.start(sample, android.R.drawable.sym_def_app_icon, stack.apiKey(), "robolectric-1");
    Engine engine = Running.engine();
    assertNotNull("start built the engine", engine);
    long deadline = System.currentTimeMillis() + 60_000;
    while (!"enabled".equals(engine.status()) && System.currentTimeMillis() < deadline) Thread.sleep(100);
    assertEquals("registered and enabled", "enabled", engine.status());

    HttpReply r = new UrlConnectionTransport(10_000, 10_000, 10_000, stack.tls()).request(new HttpRequest("GET",
        stack.url("admin") + "/api/v2/apps/" + StackTest.PACKAGE + "/installations",
        Map.of("authorization", "Bearer " + stack.apiKey()), null));
    assertEquals(r.text, 200, r.status);
    @SuppressWarnings("unchecked")
    List<Object> all = (List<Object>) Json.parseObject(r.text).get("installations");
    assertEquals(r.text, 1, all.size());
    @SuppressWarnings("unchecked")
    Map<String, Object> shown = (Map<String, Object>) all.get(0);
    assertEquals("robolectric-1", shown.get("deviceId"));
    assertEquals("enabled", shown.get("status"));
  }
}
