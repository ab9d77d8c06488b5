package dev.apkrelay.client.core.sse;

import java.util.ArrayList;
import java.util.List;

/**
 * A text/event-stream parser following the WHATWG rules, as device-client/core/sse-parser.ts:
 * lines end in CRLF, LF or CR; a line starting with ':' is a comment; "field: value" loses one
 * space after the colon; data lines are joined with '\n'; an empty line dispatches; an event with
 * no data is not dispatched; an id containing NUL is ignored; the last id persists across events;
 * {@code retry:} takes ASCII digits only. Feed decoded text in any chunking. Not thread-safe.
 */
public final class SseParser {
  private final StringBuilder buffer = new StringBuilder();
  private final List<String> data = new ArrayList<>();
  private String event = "";
  private String id;
  private boolean started;
  private Long retryMs;
  private String lastEventId;

  /** The last {@code retry:} value seen, in ms; null if none. */
  public Long retryMs() {
    return retryMs;
  }

  /** The last event id seen on this stream; null if none. */
  public String lastEventId() {
    return lastEventId;
  }

  public List<SseEvent> feed(String text) {
    buffer.append(text);
    if (!started && buffer.length() > 0) {
      started = true;
      if (buffer.charAt(0) == '\uFEFF') buffer.deleteCharAt(0);
    }
    List<SseEvent> out = new ArrayList<>();
    int start = 0;
    int n = buffer.length();
    for (int i = start; i < n; i++) {
      char c = buffer.charAt(i);
      if (c != '\n' && c != '\r') continue;
      // A CR at the end of the text may be the first half of CRLF: wait for more.
      if (c == '\r' && i == n - 1) break;
      SseEvent e = line(buffer.substring(start, i));
      if (e != null) out.add(e);
      if (c == '\r' && buffer.charAt(i + 1) == '\n') i++;
      start = i + 1;
    }
    buffer.delete(0, start);
    return out;
  }

  private SseEvent line(String line) {
    if (line.isEmpty()) return dispatch();
    if (line.charAt(0) == ':') return null;
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    String value = colon < 0 ? "" : line.substring(colon + 1);
    if (value.startsWith(" ")) value = value.substring(1);
    switch (field) {
      case "data":
        data.add(value);
        break;
      case "event":
        event = value;
        break;
      case "id":
        if (value.indexOf('\0') < 0) id = value;
        break;
      case "retry":
        if (isDigits(value)) {
          try {
            retryMs = Long.parseLong(value);
          } catch (NumberFormatException tooLong) {
            // ignored, as an unreadable retry is
          }
        }
        break;
      default:
        break;
    }
    return null;
  }

  private SseEvent dispatch() {
    if (id != null) lastEventId = id;
    SseEvent out = data.isEmpty()
        ? null
        : new SseEvent(event.isEmpty() ? "message" : event, String.join("\n", data), lastEventId);
    data.clear();
    event = "";
    id = null;
    return out;
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty()) return false;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') return false;
    }
    return true;
  }
}
