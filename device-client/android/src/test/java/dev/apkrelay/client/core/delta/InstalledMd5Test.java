package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.apkrelay.client.core.ports.FileStorage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The installed APK's MD5 is hashed once per path, size and modification time: a second start
 * reads it from storage, a changed APK is hashed again. "abc" and "abcd" hash to the values of
 * RFC 1321 A.5 and of md5sum.
 */
class InstalledMd5Test {
  static final String MARKER = "0123456789abcdef0123456789abcdef";

  @TempDir Path dir;

  @Test
  void hashedOnceThenReadBackUntilTheApkChanges() throws Exception {
    FileStorage storage = new FileStorage(dir.resolve("store").toFile());
    Path apk = dir.resolve("base.apk");
    Files.write(apk, "abc".getBytes(StandardCharsets.US_ASCII));
    Files.setLastModifiedTime(apk, FileTime.fromMillis(1_700_000_000_000L));
    assertEquals("900150983cd24fb0d6963f7d28e17f72", InstalledMd5.of(storage, apk.toString()));
    // A cached value that is not the file's own shows that the file was not hashed again.
    storage.write(InstalledMd5.KEY, storage.read(InstalledMd5.KEY).replace("900150983cd24fb0d6963f7d28e17f72", MARKER));
    assertEquals(MARKER, InstalledMd5.of(storage, apk.toString()));
    Files.setLastModifiedTime(apk, FileTime.fromMillis(1_700_000_001_000L)); // reinstalled, same bytes
    assertEquals("900150983cd24fb0d6963f7d28e17f72", InstalledMd5.of(storage, apk.toString()));
    Files.write(apk, "abcd".getBytes(StandardCharsets.US_ASCII));
    Files.setLastModifiedTime(apk, FileTime.fromMillis(1_700_000_001_000L)); // same time, other size
    assertEquals("e2fc714c4727ee9395f324cd2e7f331f", InstalledMd5.of(storage, apk.toString()));
  }

  @Test
  void unknownWithoutAReadableFile() throws Exception {
    FileStorage storage = new FileStorage(dir.toFile());
    assertNull(InstalledMd5.of(storage, null));
    assertNull(InstalledMd5.of(storage, dir.resolve("absent.apk").toString()));
  }
}
