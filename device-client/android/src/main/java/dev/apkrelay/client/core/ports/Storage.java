package dev.apkrelay.client.core.ports;

import dev.apkrelay.client.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;

/**
 * Small persistent records (text, written atomically) and the files of downloaded APKs, under
 * one private directory ({@link FileStorage}; on Android the app's no-backup files directory).
 */
public interface Storage {
  /** Null when absent. */
  String read(String key) throws IOException;

  /** The record as a JSON object; null when absent, empty or unreadable (the caller starts afresh). */
  default Map<String, Object> readObject(String key) throws IOException {
    String raw = read(key);
    try {
      return raw == null || raw.isEmpty() ? null : Json.parseObject(raw);
    } catch (RuntimeException unreadable) {
      return null;
    }
  }

  /** Replaces the record atomically and durably (temp file, fsync, rename). */
  void write(String key, String value) throws IOException;

  void remove(String key) throws IOException;

  /** 0 when absent. */
  long fileSize(String name) throws IOException;

  /** Appends to the file, creating it. */
  OutputStream append(String name) throws IOException;

  InputStream readFile(String name) throws IOException;

  void removeFile(String name) throws IOException;

  /** Where the file is, as the installer and the APPLY broadcast's {@code uri} name it. */
  String location(String name);
}
