package dev.apkrelay.client.core.queue;

import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.HttpReply;
import dev.apkrelay.client.core.ports.HttpRequest;
import dev.apkrelay.client.core.ports.HttpTransport;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.sse.Backoff;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Exception delivery, as device-client/core/exception-queue.ts: a persistent queue (written before
 * {@link #enqueue} returns, so a crashing process loses nothing), bounded (the oldest dropped with
 * a log line), identical reports sent once, one report in flight, the failed one kept at the
 * front, backoff after network failures, 408, 429 and 5xx (Retry-After honoured), and the
 * server's budget hint honoured. The log says REGISTERED, QUEUED or LOST, as spec section 3.
 *
 * <p>{@link #deliver()} sends until the queue is empty or must wait, and returns the wait; the
 * caller (the glue's scheduler, or a test) calls it again after that. Thread-safe.
 */
public final class ExceptionQueue {
  static final String QUEUE_KEY = "exceptions-queue";
  static final String SENT_KEY = "exceptions-sent";
  static final int SENT_KEPT = 500;
  /** {@link #deliver()}'s answer when nothing is left to send. */
  public static final long EMPTY = -1;

  private final Storage storage;
  private final HttpTransport transport;
  private final Clock clock;
  private final Logger logger;
  private final Backoff backoff;
  private final String url;
  private final String apiKey;
  private final List<Map<String, Object>> items = new ArrayList<>();
  private final List<String> sent = new ArrayList<>();
  private final List<String> queuedLogged = new ArrayList<>();
  private int maxSize;
  /** Why reports are held before the installation's first registration; null once registered. */
  private String unregistered;
  private int attempt;
  private long notBefore;

  public ExceptionQueue(Storage storage, HttpTransport transport, Clock clock, Logger logger,
      Backoff backoff, String baseUrl, String apiKey, int maxSize) throws IOException {
    this.storage = storage;
    this.transport = transport;
    this.clock = clock;
    this.logger = logger;
    this.backoff = backoff;
    this.url = baseUrl.replaceAll("/+$", "") + "/api/v2/exceptions";
    this.apiKey = apiKey;
    this.maxSize = checkSize(maxSize);
    load();
  }

  @SuppressWarnings("unchecked")
  private void load() throws IOException {
    String queue = storage.read(QUEUE_KEY);
    String done = storage.read(SENT_KEY);
    try {
      if (queue != null && !queue.isEmpty()) {
        for (Object o : (List<Object>) Json.parse(queue)) items.add((Map<String, Object>) o);
      }
      if (done != null && !done.isEmpty()) {
        for (Object o : (List<Object>) Json.parse(done)) sent.add((String) o);
      }
    } catch (RuntimeException unreadable) {
      logger.log(Level.ERROR, "exception queue unreadable, started empty: " + unreadable.getMessage());
      items.clear();
      sent.clear();
    }
    trim();
  }

  private static int checkSize(int size) {
    if (size < 1) throw new IllegalArgumentException("the exception queue size must be at least 1");
    return size;
  }

  public synchronized int size() {
    return items.size();
  }

  public synchronized void setMaxSize(int size) throws IOException {
    maxSize = checkSize(size);
    trim();
    persist();
  }

  /** Adds a report and persists the queue before returning; false when it was already known. */
  public synchronized boolean enqueue(ExceptionReport report) throws IOException {
    String fp = report.fingerprint;
    if (sent.contains(fp) || indexOf(fp) >= 0) {
      logger.log(Level.INFO, "identical exception " + shortFp(fp) + " not sent twice");
      return false;
    }
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("fingerprint", fp);
    item.put("body", report.body);
    items.add(item);
    trim();
    persist();
    // While the service is unreachable, a new report is held at once.
    if (attempt > 0) markQueued(item, "service unreachable");
    if (unregistered != null) markQueued(item, unregistered);
    return true;
  }

  /**
   * A registration attempt failed and none succeeded yet: the reports wait (QUEUED), because the
   * service takes reports only from registered installations. The caller does not deliver until
   * {@link #registered()}.
   */
  public synchronized void registrationFailed(String reason) {
    unregistered = "not registered yet: " + reason;
    for (Map<String, Object> item : items) markQueued(item, unregistered);
  }

  /** The installation is registered: reports may go. */
  public synchronized void registered() {
    unregistered = null;
  }

  /**
   * Sends the queued reports in order. Returns {@link #EMPTY} when none is left, else the number
   * of ms to wait before calling again (backoff, Retry-After or the budget's freesAt).
   */
  public synchronized long deliver() throws IOException {
    while (!items.isEmpty()) {
      long now = clock.now();
      if (now < notBefore) return notBefore - now;
      long wait = sendFront(now);
      if (wait > 0) {
        notBefore = now + wait;
        return wait;
      }
    }
    return EMPTY;
  }

  private long sendFront(long now) throws IOException {
    Map<String, Object> item = items.get(0);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("authorization", "Bearer " + apiKey);
    headers.put("content-type", "application/json");
    HttpReply reply;
    try {
      reply = transport.request(new HttpRequest("POST", url, headers, Json.stringify(item.get("body"))));
    } catch (IOException e) {
      return retryLater("network: " + e.getMessage(), null);
    }
    Map<String, Object> verdict;
    try {
      verdict = Json.parseObject(reply.text);
    } catch (RuntimeException notJson) {
      verdict = new LinkedHashMap<>();
    }
    Object status = verdict.get("status");
    boolean isVerdict = "REGISTERED".equals(status) || "LOST".equals(status);
    if (!isVerdict && (reply.status == 429 || reply.status >= 500 || reply.status == 408)) {
      return retryLater("HTTP " + reply.status, Backoff.retryAfterMs(reply.header("retry-after"), now));
    }
    attempt = 0;
    String fp = (String) item.get("fingerprint");
    boolean registered = "REGISTERED".equals(status) && reply.status < 300;
    Map<?, ?> error = verdict.get("error") instanceof Map ? (Map<?, ?>) verdict.get("error") : null;
    String reason = registered ? null
        : verdict.get("reason") instanceof String ? (String) verdict.get("reason")
        : error != null && error.get("code") instanceof String ? (String) error.get("code")
        : "HTTP " + reply.status;
    String message = verdict.get("message") instanceof String ? (String) verdict.get("message")
        : error != null && error.get("message") instanceof String ? (String) error.get("message") : "";
    items.remove(0);
    queuedLogged.remove(fp);
    sent.add(fp);
    while (sent.size() > SENT_KEPT) sent.remove(0);
    persist();
    logger.log(registered ? Level.INFO : Level.WARN, "exception " + shortFp(fp) + ": "
        + (registered ? "REGISTERED" : "LOST (" + reason + ": " + message + ")"));
    return budgetHold(verdict.get("budget"), now);
  }

  /** Budget hint: none remaining until freesAt, so the rest waits rather than be LOST. */
  private long budgetHold(Object budget, long now) {
    if (!(budget instanceof Map) || items.isEmpty()) return 0;
    Map<?, ?> b = (Map<?, ?>) budget;
    Long remaining = Json.asLong(b.get("remaining"));
    if (remaining == null || remaining != 0 || !(b.get("freesAt") instanceof String)) return 0;
    long hold;
    try {
      hold = Instant.parse((String) b.get("freesAt")).toEpochMilli() - now;
    } catch (DateTimeParseException e) {
      return 0;
    }
    if (hold <= 0) return 0;
    for (Map<String, Object> i : items) markQueued(i, "sending limit reached until " + b.get("freesAt"));
    return hold;
  }

  private long retryLater(String reason, Long retryAfterMs) {
    for (Map<String, Object> i : items) markQueued(i, reason);
    long delay = backoff.next(attempt, clock.random(), null, retryAfterMs);
    attempt++;
    return Math.max(1, delay);
  }

  private void markQueued(Map<String, Object> item, String reason) {
    String fp = (String) item.get("fingerprint");
    if (queuedLogged.contains(fp)) return;
    queuedLogged.add(fp);
    logger.log(Level.WARN, "exception " + shortFp(fp) + ": QUEUED (" + reason + ")");
  }

  private void trim() {
    while (items.size() > maxSize) {
      Map<String, Object> dropped = items.remove(0);
      logger.log(Level.WARN, "exception queue full (" + maxSize + "): dropped the oldest report "
          + shortFp((String) dropped.get("fingerprint")));
    }
  }

  private void persist() throws IOException {
    storage.write(QUEUE_KEY, Json.stringify(items));
    storage.write(SENT_KEY, Json.stringify(sent));
  }

  private int indexOf(String fp) {
    for (int i = 0; i < items.size(); i++) {
      if (fp.equals(items.get(i).get("fingerprint"))) return i;
    }
    return -1;
  }

  private static String shortFp(String fp) {
    return fp.length() > 12 ? fp.substring(0, 12) : fp;
  }
}
