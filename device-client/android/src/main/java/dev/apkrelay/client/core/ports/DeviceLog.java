package dev.apkrelay.client.core.ports;

import java.util.Collections;
import java.util.List;

/** The device's log, for exception reports. Never throws; never blocks for long. */
public interface DeviceLog {
  /** Lines an exception report carries at most (the server keeps the newest 200). */
  int LINES = 200;

  /** The last {@code max} lines, oldest first; empty when the log cannot be read. */
  List<String> lastLines(int max);

  DeviceLog NONE = max -> Collections.emptyList();
}
