package dev.apkrelay.cordova;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import android.content.Context;
import android.content.ContextWrapper;
import dev.apkrelay.client.Client;
import dev.apkrelay.client.core.queue.ExceptionReport;
import dev.apkrelay.client.strategy.FriendlyPopUpStrategy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.cordova.CallbackContext;
import org.apache.cordova.PluginResult;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/**
 * The bridge's mapping from JavaScript arguments to the library and back to the callbacks, on the
 * plain JVM: cordova-android's real CallbackContext and PluginResult (compiled from its npm
 * package), a CallbackContext that records instead of posting to a WebView, and the library's
 * real Client for everything but a successful start (which needs an Android process: the
 * recorded call stands in for it). Expected values are the spec's and the library's messages.
 */
class ApkRelayPluginTest {
  /** What one call answered: cordova's status ordinal and the message as the WebView gets it. */
  static final class Answer extends CallbackContext {
    final List<PluginResult> results = new ArrayList<>();

    Answer() {
      super("callback-1", null);
    }

    @Override
    public void sendPluginResult(PluginResult result) {
      results.add(result);
    }

    String ok() {
      assertEquals(1, results.size(), "one answer");
      assertEquals(PluginResult.Status.OK.ordinal(), results.get(0).getStatus(), "status of " + text());
      return text();
    }

    String error() {
      assertEquals(1, results.size(), "one answer");
      assertEquals(PluginResult.Status.ERROR.ordinal(), results.get(0).getStatus(), "status of " + text());
      return text();
    }

    private String text() {
      PluginResult r = results.get(0);
      return r.getMessageType() == PluginResult.MESSAGE_TYPE_STRING ? r.getStrMessage() : r.getMessage();
    }
  }

  /** The bridge with its Android seams replaced: a context, an icon id, a recorded UI thread. */
  static class Bridge extends ApkRelayPlugin {
    static final int ICON = 0x7f0d0001;
    final Context context = new ContextWrapper(null);
    final List<List<Object>> starts = new ArrayList<>();
    boolean onUi;
    boolean realStart;

    @Override
    protected Context appContext() {
      return context;
    }

    @Override
    protected int launcherIcon(Context c) {
      return ICON;
    }

    @Override
    protected void onUiThread(Runnable task) {
      onUi = true;
      try {
        task.run();
      } finally {
        onUi = false;
      }
    }

    @Override
    protected void startClient(Context c, int icon, String apiKey, String deviceId, String pushUrl,
        String baseUrl, String pushKey) {
      if (realStart) {
        super.startClient(c, icon, apiKey, deviceId, pushUrl, baseUrl, pushKey);
        return;
      }
      assertTrue(onUi, "start runs on the UI thread");
      starts.add(Arrays.asList(c, icon, apiKey, deviceId, pushUrl, baseUrl, pushKey));
    }
  }

  private final Bridge bridge = new Bridge();

  private Answer call(String action, Object... args) throws Exception {
    Answer a = new Answer();
    assertTrue(bridge.execute(action, new JSONArray(Arrays.asList(args)), a), action + " is an action");
    return a;
  }

  private static JSONObject json(String text) throws Exception {
    return new JSONObject(text);
  }

  @Test
  void startPassesKeyAndDeviceOnTheUiThreadWithTheAppIcon() throws Exception {
    call("start", json("{\"apiKey\":\"k\",\"deviceId\":\"d\"}")).ok();
    assertEquals(Arrays.asList(Arrays.asList(bridge.context, Bridge.ICON, "k", "d", null, null, null)), bridge.starts);
  }

  @Test
  void startPassesHostsAndPushKeyWhenGiven() throws Exception {
    call("start", json("{\"apiKey\":\"k\",\"deviceId\":\"d\",\"pushUrl\":\"https://push.test\","
        + "\"baseUrl\":\"https://web.test\",\"pushKey\":\"MCow\"}")).ok();
    assertEquals(Arrays.asList(bridge.context, Bridge.ICON, "k", "d", "https://push.test", "https://web.test", "MCow"),
        bridge.starts.get(0));
  }

  @Test
  void startsMissingParametersReachTheErrorCallbackWithTheLibrarysMessage() throws Exception {
    bridge.realStart = true;
    String message = call("start", json("{\"apiKey\":\"k\",\"deviceId\":null,\"pushUrl\":\"https://push.test\","
        + "\"baseUrl\":\"https://web.test\"}")).error();
    assertEquals("Client.start: missing or empty parameters: deviceId", message);
  }

  @Test
  void anUnknownActionIsRefusedWithoutAnAnswer() throws Exception {
    Answer a = new Answer();
    assertFalse(bridge.execute("getVersion", new JSONArray(), a));
    assertEquals(0, a.results.size());
  }

  @Test
  void strategiesTheirPropertiesAndPushLinksNinjaName() throws Exception {
    call("setCurrentStrategy", "FRIENDLY_POPUP", json("{\"notNowButton\":\"Later\",\"reminderTimeInSeconds\":120}"))
        .ok();
    assertEquals("FRIENDLY_POPUP", call("getCurrentStrategy").ok());
    FriendlyPopUpStrategy friendly = (FriendlyPopUpStrategy) Client.getCurrentStrategy();
    assertEquals("Later", friendly.getNotNowButton());
    assertEquals(120, friendly.getReminderTimeInSeconds());

    assertEquals("ANNOYING_POPUP has no property notNowButton",
        call("setCurrentStrategy", "ANNOYING_POPUP", json("{\"notNowButton\":\"x\"}")).error());
    assertEquals("FRIENDLY_POPUP", call("getCurrentStrategy").ok(), "a refused call changes nothing");
    assertEquals("unknown strategy: PUSHY", call("setCurrentStrategy", "PUSHY").error());

    call("setCurrentStrategy", "NINJA").ok();
    assertEquals("CUSTOM", call("getCurrentStrategy").ok());
    call("setCurrentStrategy", "STATUS_BAR", json("{\"statusBarTitle\":\"Update ready\"}")).ok();
    assertEquals("STATUS_BAR", call("getCurrentStrategy").ok());
  }

  @Test
  void metadataKeysFollowTheLibrarysRule() throws Exception {
    assertEquals("metadata key must not be null or empty", call("addMetadata", JSONObject.NULL, "v").error());
    assertEquals("metadata key must not be null or empty", call("addExceptionMetadata", "", "v").error());
    assertEquals("OK", call("addMetadata", "shop", "Lisbon 3").ok());
    assertEquals("OK", call("addExceptionMetadata", "till", "7").ok());
  }

  @Test
  void pendingUpdateIdleAndExceptionSwitches() throws Exception {
    assertEquals("false", call("hasPendingUpdate").ok(), "a boolean false before start");
    assertEquals("false", call("applyUpdate").ok(), "nothing to apply before start: a boolean false");
    assertEquals("OK", call("idle", false).ok());
    assertEquals("OK", call("idle", true).ok());
    call("idle").error();
    assertEquals("the exception queue size must be at least 1", call("setMaxExceptionQueueSize", 0).error());
    assertEquals("OK", call("setMaxExceptionQueueSize", 20).ok());
    assertEquals("OK", call("disableExceptionNotification").ok());
    assertEquals("OK", call("enableExceptionNotification").ok());
  }

  @Test
  void aJavaScriptErrorBecomesAReportWithItsOwnFrames() throws Exception {
    JSONObject error = json("{\"name\":\"TypeError\",\"message\":\"x is undefined\",\"stack\":"
        + "\"TypeError: x is undefined\\n    at render (https://localhost/js/app.js:12:7)\\n"
        + "    at https://localhost/js/app.js:40:3\\n    not a frame\"}");
    assertEquals(Arrays.asList("TypeError: x is undefined",
        "\tat js.render(https://localhost/js/app.js:12)",
        "\tat js.<anonymous>(https://localhost/js/app.js:40)"),
        ExceptionReport.stackLines(JavaScriptError.of(error)));
    assertEquals("OK", call("sendAsyncException", error, json("{\"screen\":\"home\"}")).ok());
    assertEquals("OK", call("sendAsyncException", error, JSONObject.NULL).ok());
    assertEquals("sendAsyncException needs an error", call("sendAsyncException", JSONObject.NULL).error());
  }
}
