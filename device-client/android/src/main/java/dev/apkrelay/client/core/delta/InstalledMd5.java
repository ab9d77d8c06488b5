package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Storage;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;

/**
 * The MD5 of the installed APK (the registration's {@code installedMd5}, a delta's {@code from}),
 * hashed once per APK: kept in storage with the path, size and modification time it was computed
 * for, and computed again only when one of them changes (an update, a reinstall). Hashing a
 * 100 MB APK at every start costs seconds of a till's CPU.
 */
public final class InstalledMd5 {
  static final String KEY = "installed-apk";

  private InstalledMd5() {}

  /** Null when the path is null or the file cannot be read. */
  public static String of(Storage storage, String path) throws IOException {
    if (path == null) return null;
    File f = new File(path);
    if (!f.isFile()) return null;
    long size = f.length();
    long mtime = f.lastModified();
    Map<String, Object> cached = storage.readObject(KEY);
    if (cached != null && path.equals(cached.get("path")) && Long.valueOf(size).equals(Json.asLong(cached.get("size")))
        && Long.valueOf(mtime).equals(Json.asLong(cached.get("mtime"))) && cached.get("md5") instanceof String) {
      return (String) cached.get("md5");
    }
    String md5 = hash(f);
    storage.write(KEY, Json.stringify(Json.object("path", path, "size", size, "mtime", mtime, "md5", md5)));
    return md5;
  }

  private static String hash(File f) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is missing from this platform", e);
    }
    try (InputStream in = new FileInputStream(f)) {
      byte[] buf = new byte[64 * 1024];
      int n;
      while ((n = in.read(buf)) > 0) md.update(buf, 0, n);
    }
    return Downloader.hex(md.digest());
  }
}
