package dev.apkrelay.client.core.delta;

import static dev.apkrelay.client.core.delta.DeltaServerScript.notReady;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.apkrelay.client.core.delta.DeltaServerScript.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The delta contract's "not ready yet" on the device, over real HTTP with a fake clock (its sleeps
 * are recorded, nothing waits): a 503 with Retry-After is waited out, min(Retry-After, 30) s at a
 * time, and asked again; after 120 s of waiting in all the answer is no-patch (the full download
 * follows); a 503 without a usable Retry-After, or another 5xx, is network at once. Every byte
 * read, the 503s' "Delta not ready yet." (20 bytes) included, is counted.
 */
class DeltaFetchNotReadyTest {
  static final int NOT_READY_BODY = 20;
  static final byte[] PATCH = DeltaFetchTest.PATCH;

  @TempDir Path dir;
  DeltaServerScript s;

  @BeforeEach
  void start() throws Exception {
    s = new DeltaServerScript(dir, DeltaFetchTest.OLD, DeltaFetchTest.NEW);
  }

  @AfterEach
  void stop() {
    s.close();
  }

  void script(Reply... replies) {
    s.script.addAll(List.of(replies));
  }

  @Test
  void aNotReadyAnswerIsWaitedOutAndThePatchAskedForAgain() throws Exception {
    script(notReady("5"), s.patch(PATCH, null));
    assertTrue(s.attempt(null).applied());
    assertArrayEquals(DeltaFetchTest.NEW, Files.readAllBytes(dir.resolve("store/update.apk")));
    assertEquals(List.of(5_000L), s.sleeps);
    assertEquals(List.of(s.query(""), s.query("")), s.queries);
    assertEquals(NOT_READY_BODY + PATCH.length, s.received.get());
  }

  @Test
  void aRetryAfterAboveThirtySecondsWaitsThirty() throws Exception {
    script(notReady("60"), notReady("31"), s.patch(PATCH, null));
    assertTrue(s.attempt(null).applied());
    assertEquals(List.of(30_000L, 30_000L), s.sleeps);
  }

  @Test
  void afterTwoMinutesOfWaitingTheAnswerIsNoPatch() throws Exception {
    script(notReady("30"));
    DeltaFetch.Result r = s.attempt(null);
    assertEquals("no-patch", r.reason, r.message);
    assertEquals(List.of(30_000L, 30_000L, 30_000L, 30_000L), s.sleeps);
    assertEquals(5, s.queries.size());
    assertEquals(5 * NOT_READY_BODY, s.received.get());
    assertFalse(Files.exists(dir.resolve("store/update.apk")));
  }

  @Test
  void theTwoMinutesCountEveryWaitAndTheLastIsCutToWhatIsLeft() throws Exception {
    script(notReady("7"));
    assertEquals("no-patch", s.attempt(null).reason);
    List<Long> expected = new java.util.ArrayList<>(Collections.nCopies(17, 7_000L)); // 119 s
    expected.add(1_000L);
    assertEquals(expected, s.sleeps);
    assertEquals(19, s.queries.size());
  }

  @Test
  void aNotReadyAnswerWithoutAUsableRetryAfterIsANetworkFallbackAtOnce() throws Exception {
    for (String retryAfter : new String[] {null, "soon", "0", "Wed, 21 Oct 2026 07:28:00 GMT"}) {
      s.script.clear();
      script(notReady(retryAfter), s.patch(PATCH, null));
      DeltaFetch.Result r = s.attempt(null);
      assertEquals("network", r.reason, retryAfter + ": " + r.message);
    }
    assertEquals(List.of(), s.sleeps);
    assertEquals(4, s.queries.size());
  }

  @Test
  void anotherServerErrorIsANetworkFallbackEvenWithRetryAfter() throws Exception {
    for (int status : new int[] {500, 502, 504}) {
      s.script.clear();
      script(new Reply(status, PatchWriter.ascii("busy"), "Retry-After", "5"), s.patch(PATCH, null));
      assertEquals("network", s.attempt(null).reason, "HTTP " + status);
    }
    assertEquals(List.of(), s.sleeps);
    assertEquals(3, s.queries.size());
  }

  @Test
  void anUpdateCancelledWhileWaitingStopsThereKeepingNothing() throws Exception {
    s.cancelDuringSleep = true;
    script(notReady("5"), s.patch(PATCH, null));
    assertTrue(s.attempt(null).cancelled());
    assertEquals(List.of(5_000L), s.sleeps);
    assertEquals(1, s.queries.size(), "not asked again once cancelled");
    assertFalse(Files.exists(dir.resolve("store/update.apk")));
  }
}
