package dev.apkrelay.client.core.ports;

/** Where the library's log lines go (on Android: android.util.Log with the library's tag). */
public interface Logger {
  enum Level { DEBUG, INFO, WARN, ERROR }

  void log(Level level, String message);
}
