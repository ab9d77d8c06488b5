package dev.apkrelay.client.android;

import android.app.Application;
import dev.apkrelay.client.core.Engine;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.util.HashMap;
import java.util.concurrent.Executors;

/**
 * Engines for the Android glue tests: a configuration that names no reachable server, and an
 * engine over it that presents nothing, for tests that only need one to be running.
 */
final class TestEngines {
  private TestEngines() { }

  static Engine.Config config(String pkg) {
    Engine.Config c = new Engine.Config();
    c.packageName = pkg;
    c.apiKey = "key";
    c.deviceId = "device";
    c.pushUrl = "http://push.invalid";
    c.baseUrl = "http://base.invalid";
    return c;
  }

  static Engine silent(Application app, Logger logger) {
    return new Engine(config(app.getPackageName()), null, new FileStorage(app.getNoBackupFilesDir()),
        Clock.SYSTEM, logger, new Engine.Presenter() {
          @Override public void present(VersionEvent event, String location) { }
          @Override public void withdraw(boolean gaveUp) { }
          @Override public void install(VersionEvent event, String location) { }
        }, Executors.newSingleThreadScheduledExecutor(), HashMap::new);
  }
}
