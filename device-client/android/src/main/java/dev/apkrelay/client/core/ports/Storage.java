package dev.apkrelay.client.core.ports;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Small persistent records (text, written atomically) and the files of downloaded APKs, under
 * one private directory ({@link FileStorage}; on Android the app's no-backup files directory).
 */
public interface Storage {
  /** Null when absent. */
  String read(String key) throws IOException;

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
