package dev.apkrelay.demo;

import android.app.Application;
import android.provider.Settings;
import dev.apkrelay.client.Client;

/** The demo's Application: starts the library as the README says (hosts from meta-data). */
public class App extends Application {
  /** Replaced by a real key in a real app; the demo's server tests register any device id. */
  static final String API_KEY = "demo-api-key";

  @Override
  public void onCreate() {
    super.onCreate();
    String deviceId = Settings.Secure.getString(getContentResolver(), Settings.Secure.ANDROID_ID);
    Client.start(this, android.R.drawable.sym_def_app_icon, API_KEY, deviceId);
  }
}
