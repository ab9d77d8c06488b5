package dev.apkrelay.client.core.ports;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * {@link Storage} in one directory. Records are {@code <key>.json}, written to a temp file,
 * fsynced, then renamed over the old one, so a crash leaves the old or the new record, never a
 * zero-byte one. Keys and names are restricted to [A-Za-z0-9._-] so nothing escapes the directory.
 */
public final class FileStorage implements Storage {
  private final File dir;

  public FileStorage(File dir) {
    this.dir = dir;
  }

  private File file(String name) throws IOException {
    if (!name.matches("[A-Za-z0-9._-]+") || name.startsWith(".")) {
      throw new IOException("storage: bad name " + name);
    }
    if (!dir.isDirectory() && !dir.mkdirs() && !dir.isDirectory()) {
      throw new IOException("storage: cannot create " + dir);
    }
    return new File(dir, name);
  }

  @Override
  public String read(String key) throws IOException {
    File f = file(key + ".json");
    if (!f.isFile()) return null;
    try (InputStream in = new FileInputStream(f)) {
      return new String(UrlConnectionTransport.readAll(in), StandardCharsets.UTF_8);
    } catch (FileNotFoundException gone) {
      return null;
    }
  }

  @Override
  public void write(String key, String value) throws IOException {
    File target = file(key + ".json");
    File temp = file(key + ".json.tmp");
    try (FileOutputStream out = new FileOutputStream(temp)) {
      out.write(value.getBytes(StandardCharsets.UTF_8));
      out.getFD().sync();
    }
    if (!temp.renameTo(target)) throw new IOException("storage: cannot replace " + target);
  }

  @Override
  public void remove(String key) throws IOException {
    File f = file(key + ".json");
    if (f.exists() && !f.delete()) throw new IOException("storage: cannot delete " + f);
  }

  @Override
  public long fileSize(String name) throws IOException {
    File f = file(name);
    return f.isFile() ? f.length() : 0;
  }

  @Override
  public OutputStream append(String name) throws IOException {
    return new FileOutputStream(file(name), true);
  }

  @Override
  public InputStream readFile(String name) throws IOException {
    return new FileInputStream(file(name));
  }

  @Override
  public void removeFile(String name) throws IOException {
    File f = file(name);
    if (f.exists() && !f.delete()) throw new IOException("storage: cannot delete " + f);
  }

  @Override
  public String location(String name) {
    return new File(dir, name).getAbsolutePath();
  }
}
