package dev.apkrelay.client.core.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cases from the WHATWG HTML standard, 9.2.6 "Interpreting an event stream", and its examples. */
class SseParserTest {
  private static List<SseEvent> feedAll(SseParser p, String... chunks) {
    List<SseEvent> out = new ArrayList<>();
    for (String c : chunks) out.addAll(p.feed(c));
    return out;
  }

  @Test
  void multiLineDataIsJoinedWithLineFeeds() {
    List<SseEvent> e = feedAll(new SseParser(), "data: YHOO\ndata: +2\ndata: 10\n\n");
    assertEquals(1, e.size());
    assertEquals("message", e.get(0).event);
    assertEquals("YHOO\n+2\n10", e.get(0).data);
    assertNull(e.get(0).id);
  }

  @Test
  void commentsFieldsAndIdsAsTheStandardsExample() {
    SseParser p = new SseParser();
    List<SseEvent> e = feedAll(p,
        ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n");
    assertEquals(3, e.size());
    assertEquals("first event", e.get(0).data);
    assertEquals("1", e.get(0).id);
    assertEquals("second event", e.get(1).data);
    assertEquals("", e.get(1).id); // "id" with no value resets the last event id to ""
    assertEquals(" third event", e.get(2).data); // only one leading space is removed
  }

  @Test
  void namedEventsAndEveryLineEndingInAnyChunking() {
    SseParser p = new SseParser();
    List<SseEvent> e = feedAll(p, "event: ver", "sion\r", "\ndata: {}\r\r", "event: giveup\ndata: x\r\n", "\r\n");
    assertEquals(2, e.size());
    assertEquals("version", e.get(0).event);
    assertEquals("{}", e.get(0).data);
    assertEquals("giveup", e.get(1).event);
  }

  @Test
  void eventWithoutDataIsNotDispatchedButItsIdIsKept() {
    SseParser p = new SseParser();
    assertTrue(feedAll(p, "id: 7\nevent: version\n\n").isEmpty());
    assertEquals("7", p.lastEventId());
    assertEquals("7", feedAll(p, "data: a\n\n").get(0).id);
  }

  @Test
  void idWithNulIsIgnoredAndRetryTakesDigitsOnly() {
    SseParser p = new SseParser();
    feedAll(p, "id: 5\n\nid: 6\u00007\nretry: 2500\nretry: 1e3\nretry: -1\ndata: d\n\n");
    assertEquals("5", p.lastEventId());
    assertEquals(Long.valueOf(2500), p.retryMs());
  }

  @Test
  void unfinishedEventAtStreamEndIsNotDispatchedAndBomIsDropped() {
    SseParser p = new SseParser();
    List<SseEvent> e = feedAll(p, "\uFEFFdata: one\n\ndata: half");
    assertEquals(1, e.size());
    assertEquals("one", e.get(0).data);
  }
}
