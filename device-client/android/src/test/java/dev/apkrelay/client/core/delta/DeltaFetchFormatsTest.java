package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which patch format DeltaFetch asks for and applies (the delta contract's "Asking for it"), over
 * real HTTP: with a Recompressor it sends {@code formats=2,1} and applies what
 * {@code X-Apkrelay-Delta-Format} names (absent: ARDELTA1); without one it sends no formats (the
 * server then serves ARDELTA1 only) and refuses a patch named 2. A format it did not ask for, or
 * bytes of another format than named, are {@code patch-failed}; dfOld never stays behind.
 */
class DeltaFetchFormatsTest {
  static final byte[] OLD2;
  static final byte[] NEW2;
  static final byte[] PATCH2;

  static {
    try {
      OLD2 = DeltaApplierZipTest.zip(1, 6, 0);
      NEW2 = DeltaApplierZipTest.zip(2, 6, 0);
      PATCH2 = DeltaApplierZipTest.patch(6, 0);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
  static final String BOTH = "&formats=2,1";

  @TempDir Path dir;
  DeltaServerScript s;

  @AfterEach
  void stop() {
    if (s != null) s.close();
  }

  DeltaServerScript fileByFile() throws Exception {
    return s = new DeltaServerScript(dir, OLD2, NEW2);
  }

  DeltaServerScript wholeFile() throws Exception {
    return s = new DeltaServerScript(dir, DeltaFetchTest.OLD, DeltaFetchTest.NEW);
  }

  void noDfOldLeft() {
    assertFalse(Files.exists(dir.resolve("store/" + DeltaFetch.dfOldName(s.event))), "dfOld is deleted");
  }

  @Test
  void withARecompressorItAsksForBothFormatsAndAppliesAnArdelta2Patch() throws Exception {
    fileByFile().script.add(s.patch(PATCH2, "2"));
    DeltaFetch.Result r = s.attempt(new JdkRecompressor());
    assertTrue(r.applied(), r.reason + ": " + r.message);
    assertArrayEquals(NEW2, Files.readAllBytes(dir.resolve("store/update.apk")));
    assertEquals(List.of(s.query(BOTH)), s.queries);
    assertEquals(PATCH2.length, s.received.get());
    noDfOldLeft();
  }

  @Test
  void anAbsentOrOneFormatHeaderIsArdelta1() throws Exception {
    wholeFile().script.add(s.patch(DeltaFetchTest.PATCH, null));
    assertTrue(s.attempt(new JdkRecompressor()).applied());
    s.script.clear();
    s.script.add(s.patch(DeltaFetchTest.PATCH, "1"));
    assertTrue(s.attempt(new JdkRecompressor()).applied());
    assertArrayEquals(DeltaFetchTest.NEW, Files.readAllBytes(dir.resolve("store/update.apk")));
    assertEquals(List.of(s.query(BOTH), s.query(BOTH)), s.queries);
  }

  @Test
  void withoutARecompressorNoFormatsAreSentAndAPatchNamedTwoIsRefused() throws Exception {
    fileByFile().script.add(s.patch(PATCH2, "2"));
    DeltaFetch.Result r = s.attempt(null);
    assertEquals("patch-failed", r.reason, r.message);
    assertEquals(List.of(s.query("")), s.queries);
    assertFalse(Files.exists(dir.resolve("store/update.apk")));
  }

  @Test
  void aFormatNotAskedForOrBytesOfAnotherFormatArePatchFailed() throws Exception {
    fileByFile().script.add(s.patch(PATCH2, "3"));
    assertEquals("patch-failed", s.attempt(new JdkRecompressor()).reason);
    s.script.clear();
    s.script.add(s.patch(PATCH2, "1")); // ARDELTA2 bytes named ARDELTA1: the magic is refused
    DeltaFetch.Result r = s.attempt(new JdkRecompressor());
    assertEquals("patch-failed", r.reason);
    assertTrue(r.message.startsWith("magic: "), r.message);
    assertFalse(Files.exists(dir.resolve("store/update.apk")));
  }

  @Test
  void aRefusedArdelta2PatchLeavesNoDfOld() throws Exception {
    // An "old range" over the ZIP's local header: not deflate data, refused (plan) once dfOld is begun.
    byte[] other = PatchWriter.fileByFile(NEW2.length, new long[][] {{0, 30, 100}}, new long[0][], 1)
        .record(new byte[1], new byte[0], 0).patch();
    fileByFile().script.add(s.patch(other, "2"));
    DeltaFetch.Result r = s.attempt(new JdkRecompressor());
    assertEquals("patch-failed", r.reason, r.message);
    assertFalse(Files.exists(dir.resolve("store/update.apk")));
    noDfOldLeft();
  }

  @Test
  void aWholeArdelta2PatchKeptFromAnEarlierTryIsAppliedAsArdelta2WithoutAskingAgain() throws Exception {
    fileByFile().script.add(s.patch(PATCH2, "1")); // never served: nothing is asked
    Files.createDirectories(dir.resolve("store"));
    Files.write(dir.resolve("store/" + DeltaFetch.patchName(s.event)), PATCH2);
    s.storage.write(DeltaFetch.META_KEY, "{\"to\":\"" + s.event.sha256 + "\",\"etag\":\"\\\"patch-sha\\\"\",\"size\":"
        + PATCH2.length + ",\"format\":2}");
    assertTrue(s.attempt(new JdkRecompressor()).applied());
    assertArrayEquals(NEW2, Files.readAllBytes(dir.resolve("store/update.apk")));
    assertEquals(List.of(), s.queries);
  }
}
