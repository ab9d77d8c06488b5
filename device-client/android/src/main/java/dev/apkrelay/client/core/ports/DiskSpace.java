package dev.apkrelay.client.core.ports;

import java.io.File;

/**
 * The bytes still writable where updates are stored: a delta needs room for its patch and the
 * whole new APK, so it is checked before the patch is fetched (File.getUsableSpace on every
 * platform; a port so the tests can run short of space).
 */
public interface DiskSpace {
  long usableBytes();

  /** The space of the volume holding {@code dir}. */
  static DiskSpace of(File dir) {
    return dir::getUsableSpace;
  }
}
