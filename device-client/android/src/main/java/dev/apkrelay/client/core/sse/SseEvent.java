package dev.apkrelay.client.core.sse;

/** One dispatched server-sent event: its type (default "message"), data and last event id. */
public final class SseEvent {
  public final String event;
  public final String data;
  /** The last event id seen on the stream when this event was dispatched; null if none yet. */
  public final String id;

  public SseEvent(String event, String data, String id) {
    this.event = event;
    this.data = data;
    this.id = id;
  }

  @Override
  public String toString() {
    return "SseEvent{event=" + event + ", id=" + id + ", data=" + data + "}";
  }
}
