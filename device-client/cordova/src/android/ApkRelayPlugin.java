package dev.apkrelay.cordova;

import android.content.Context;
import dev.apkrelay.client.Client;
import dev.apkrelay.client.strategy.AnnoyingPopUpStrategy;
import dev.apkrelay.client.strategy.FriendlyPopUpStrategy;
import dev.apkrelay.client.strategy.StatusBarStrategy;
import dev.apkrelay.client.strategy.Strategy;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.cordova.CallbackContext;
import org.apache.cordova.CordovaPlugin;
import org.apache.cordova.PluginResult;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The Cordova bridge over apkrelay's Android library ({@link Client}): one action per function of
 * www/apkrelay.js. Every failure reaches the error callback with the library's message, never a
 * throw into the WebView. {@code start} runs on the main thread, as the library requires; the
 * activity is handed to the library on every resume (popups need it).
 */
public class ApkRelayPlugin extends CordovaPlugin {
  @Override
  protected void pluginInitialize() {
    Client.setCurrentActivity(cordova.getActivity());
  }

  @Override
  public void onResume(boolean multitasking) {
    Client.setCurrentActivity(cordova.getActivity());
  }

  @Override
  public void onPause(boolean multitasking) {
    Client.setCurrentActivity(null);
  }

  @Override
  public boolean execute(String action, JSONArray args, CallbackContext callback) throws JSONException {
    if ("start".equals(action)) {
      JSONObject o = args.optJSONObject(0);
      onUiThread(() -> answer(callback, () -> start(o == null ? new JSONObject() : o)));
      return true;
    }
    Call call = call(action, args);
    if (call == null) return false;
    answer(callback, call);
    return true;
  }

  /** What one action does; returns the success value (null: none). */
  interface Call {
    Object run() throws Exception;
  }

  private static Call call(String action, JSONArray args) {
    switch (action) {
      case "setCurrentStrategy": return () -> setStrategy(text(args, 0), args.optJSONObject(1));
      case "getCurrentStrategy": return ApkRelayPlugin::strategyName;
      case "hasPendingUpdate": return Client::hasPendingUpdate;
      case "applyUpdate": return Client::applyUpdate;
      case "idle": return () -> { Client.idle(args.getBoolean(0)); return null; };
      case "addMetadata": return () -> { Client.addMetadata(text(args, 0), text(args, 1)); return null; };
      case "addExceptionMetadata":
        return () -> { Client.addExceptionMetadata(text(args, 0), text(args, 1)); return null; };
      case "sendAsyncException":
        return () -> {
          Client.sendAsyncException(JavaScriptError.of(args.optJSONObject(0)), strings(args.optJSONObject(1)));
          return null;
        };
      case "enableExceptionNotification": return () -> { Client.enableExceptionNotification(); return null; };
      case "disableExceptionNotification": return () -> { Client.disableExceptionNotification(); return null; };
      case "setMaxExceptionQueueSize":
        return () -> { Client.setMaxExceptionQueueSize(args.getInt(0)); return null; };
      default: return null;
    }
  }

  private static void answer(CallbackContext callback, Call call) {
    Object value;
    try {
      value = call.run();
    } catch (Exception e) {
      callback.error(e.getMessage() == null ? e.toString() : e.getMessage());
      return;
    }
    if (value instanceof Boolean) callback.sendPluginResult(new PluginResult(PluginResult.Status.OK, (Boolean) value));
    else if (value instanceof String) callback.success((String) value);
    else callback.success();
  }

  private Object start(JSONObject o) {
    Context context = appContext();
    startClient(context, context == null ? 0 : launcherIcon(context), text(o, "apiKey"), text(o, "deviceId"),
        text(o, "pushUrl"), text(o, "baseUrl"), text(o, "pushKey"));
    return null;
  }

  /**
   * The library's start: the four-argument form (hosts and push key from the manifest meta-data
   * the plugin's variables wrote) unless the JavaScript gave a host or the key.
   */
  protected void startClient(Context context, int icon, String apiKey, String deviceId, String pushUrl,
      String baseUrl, String pushKey) {
    if (pushUrl == null && baseUrl == null && pushKey == null) Client.start(context, icon, apiKey, deviceId);
    else Client.start(context, icon, apiKey, deviceId, pushUrl, baseUrl, pushKey);
  }

  protected Context appContext() {
    return cordova.getActivity().getApplicationContext();
  }

  /** The application's icon (the launcher icon of a Cordova app) for the notification. */
  protected int launcherIcon(Context context) {
    return context.getApplicationInfo().icon;
  }

  protected void onUiThread(Runnable task) {
    cordova.getActivity().runOnUiThread(task);
  }

  private static Object setStrategy(String name, JSONObject properties) throws JSONException {
    if (name == null) throw new IllegalArgumentException("setCurrentStrategy needs a strategy name");
    Strategy strategy = strategyOf(name);
    if (properties != null) customise(strategy, properties);
    else Client.setCurrentStrategy(strategy);
    return null;
  }

  private static Strategy strategyOf(String name) {
    if ("NINJA".equals(name)) return Strategy.CUSTOM; // PushLink's earlier name of CUSTOM
    for (Strategy s : Strategy.values()) if (s.name().equals(name)) return s;
    throw new IllegalArgumentException("unknown strategy: " + name);
  }

  /** The properties each strategy's object takes (its setters, spec 4.4), by strategy. */
  private static List<String> properties(Strategy strategy) {
    switch (strategy) {
      case STATUS_BAR: return Arrays.asList("statusBarTitle", "statusBarDescription");
      case FRIENDLY_POPUP:
        return Arrays.asList("popUpMessage", "notNowButton", "updateButton", "reminderTimeInSeconds");
      case ANNOYING_POPUP: return Arrays.asList("popUpMessage", "updateButton");
      default: return Arrays.<String>asList();
    }
  }

  /** Checks every property before changing anything, so a refused call leaves the strategy as it was. */
  private static void customise(Strategy strategy, JSONObject p) throws JSONException {
    for (Iterator<String> keys = p.keys(); keys.hasNext(); ) {
      String key = keys.next();
      if (!properties(strategy).contains(key)) {
        throw new IllegalArgumentException(strategy.name() + " has no property " + key);
      }
    }
    Client.setCurrentStrategy(strategy);
    Object target = Client.getCurrentStrategy();
    for (Iterator<String> keys = p.keys(); keys.hasNext(); ) setProperty(target, keys.next(), p);
  }

  private static String strategyName() {
    Object s = Client.getCurrentStrategy();
    if (s instanceof StatusBarStrategy) return Strategy.STATUS_BAR.name();
    if (s instanceof FriendlyPopUpStrategy) return Strategy.FRIENDLY_POPUP.name();
    if (s instanceof AnnoyingPopUpStrategy) return Strategy.ANNOYING_POPUP.name();
    return Strategy.CUSTOM.name();
  }

  private static void setProperty(Object s, String key, JSONObject p) throws JSONException {
    if (s instanceof StatusBarStrategy) {
      StatusBarStrategy b = (StatusBarStrategy) s;
      if ("statusBarTitle".equals(key)) b.setStatusBarTitle(p.getString(key));
      else b.setStatusBarDescription(p.getString(key));
    } else if (s instanceof FriendlyPopUpStrategy) {
      FriendlyPopUpStrategy f = (FriendlyPopUpStrategy) s;
      if ("popUpMessage".equals(key)) f.setPopUpMessage(p.getString(key));
      else if ("notNowButton".equals(key)) f.setNotNowButton(p.getString(key));
      else if ("updateButton".equals(key)) f.setUpdateButton(p.getString(key));
      else f.setReminderTimeInSeconds(p.getInt(key));
    } else if (s instanceof AnnoyingPopUpStrategy) {
      AnnoyingPopUpStrategy a = (AnnoyingPopUpStrategy) s;
      if ("popUpMessage".equals(key)) a.setPopUpMessage(p.getString(key));
      else a.setUpdateButton(p.getString(key));
    }
  }

  /** A string argument; JavaScript's null and undefined are null (org.json's opt gives "null"). */
  private static String text(JSONArray args, int i) {
    return args.isNull(i) ? null : String.valueOf(args.opt(i));
  }

  private static String text(JSONObject o, String key) {
    return o.isNull(key) ? null : String.valueOf(o.opt(key));
  }

  private static Map<String, String> strings(JSONObject o) {
    if (o == null) return null;
    Map<String, String> map = new LinkedHashMap<>();
    for (Iterator<String> keys = o.keys(); keys.hasNext(); ) {
      String key = keys.next();
      map.put(key, text(o, key));
    }
    return map;
  }
}
