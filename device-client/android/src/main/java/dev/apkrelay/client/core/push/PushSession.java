package dev.apkrelay.client.core.push;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.HttpReply;
import dev.apkrelay.client.core.ports.HttpRequest;
import dev.apkrelay.client.core.ports.HttpStream;
import dev.apkrelay.client.core.ports.HttpTransport;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.sse.Backoff;
import dev.apkrelay.client.core.sse.SseEvent;
import dev.apkrelay.client.core.sse.SseParser;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The device's link to the push host, as device-client/core/push-connection.ts: pin the
 * push-signing key (given, or fetched once and stored), register the installation, hold the event
 * stream open resuming with {@code Last-Event-ID}, and heartbeat. Blocking: {@link #connectOnce()}
 * runs one cycle on the caller's (worker) thread and returns how long to wait before the next:
 * backoff with jitter, never sooner than the stream's {@code retry:} or a 429/503's
 * {@code Retry-After}.
 */
public final class PushSession {
  /** What the session reports; called on the session's thread. */
  public interface Listener {
    /**
     * An event as received; the caller routes it ({@code RoutedEvent.route}). {@code accountId}:
     * what the registration reply named, "" when it named none (an older server): format 2 notices
     * must name this account, so then every notice is refused.
     */
    void onEvent(SseEvent event, PushKey key, String accountId) throws IOException;

    /** "enabled" or "disabled", from registration or a heartbeat. */
    void onStatus(String status);

    /** A registration attempt failed (network, refusal): why. Exception reports wait for one. */
    default void onRegistrationFailed(String reason) {}
  }

  static final String KEY_KEY = "push-key";
  static final String LAST_ID_KEY = "last-event-id";

  private final HttpTransport transport;
  private final Storage storage;
  private final Clock clock;
  private final Logger logger;
  private final Backoff backoff;
  private final String pushUrl;
  private final String apiKey;
  private final String pinnedKey;
  private final Listener listener;
  private volatile boolean stopped;
  private volatile HttpStream current;
  private PushKey key;
  private volatile boolean registered;
  private volatile String accountId = "";
  private String streamUrl;
  private volatile long heartbeatMs = 30_000;
  private Long retryFieldMs;
  private int attempt;
  private String sentMetadata = "";

  /**
   * @param pinnedKeySpki the push key (SPKI DER, base64); null or blank: trust the first one fetched
   *     (manifest meta-data given as {@code android:value=""}, as a Cordova app installed without
   *     {@code --variable PUSH_KEY} has, compiles to "", which is "not pinned")
   */
  public PushSession(HttpTransport transport, Storage storage, Clock clock, Logger logger, Backoff backoff,
      String pushUrl, String apiKey, String pinnedKeySpki, Listener listener) {
    this.transport = transport;
    this.storage = storage;
    this.clock = clock;
    this.logger = logger;
    this.backoff = backoff;
    this.pushUrl = pushUrl.replaceAll("/+$", "");
    this.apiKey = apiKey;
    this.pinnedKey = pinnedKeySpki == null || pinnedKeySpki.trim().isEmpty() ? null : pinnedKeySpki;
    this.listener = listener;
  }

  /** The server's heartbeat period (from registration; 30 s until then). */
  public long heartbeatMs() {
    return heartbeatMs;
  }

  /** Whether the installation is registered (the server forgot it after a 404 until it is again). */
  public boolean registered() {
    return registered;
  }

  /**
   * Pins the key, registers if needed, and reads the stream until it ends. Returns the ms to wait
   * before calling again. {@code registration} is the body of {@code POST /api/v2/installations}.
   */
  public long connectOnce(Map<String, Object> registration) {
    Long waitMs = null;
    try {
      if (key == null) key = pinKey();
      if (!registered) register(registration);
      stream(registration);
    } catch (Refused r) {
      logger.log(Level.WARN, "push: " + r.getMessage());
      waitMs = r.retryAfterMs;
      if (!registered) listener.onRegistrationFailed(r.getMessage());
    } catch (IOException | RuntimeException e) {
      if (!stopped) logger.log(Level.WARN, "push: " + e.getMessage());
      if (!stopped && !registered) listener.onRegistrationFailed(String.valueOf(e.getMessage()));
    }
    long delay = backoff.next(attempt, clock.random(), retryFieldMs, waitMs);
    attempt++;
    return delay;
  }

  /** Ends the stream being read (from any thread); {@link #connectOnce} then returns. */
  public void stop() {
    stopped = true;
    HttpStream s = current;
    if (s != null) s.close();
  }

  private Map<String, String> headers() {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("authorization", "Bearer " + apiKey);
    return h;
  }

  private PushKey pinKey() throws IOException {
    if (pinnedKey != null) return PushKey.fromSpkiBase64(pinnedKey);
    String stored = storage.read(KEY_KEY);
    if (stored != null && !stored.isEmpty()) return PushKey.fromSpkiBase64(stored);
    HttpReply reply = transport.request(new HttpRequest("GET", pushUrl + "/api/v2/push-key", headers(), null));
    Map<String, Object> body = reply.status == 200 ? Json.parseObject(reply.text) : new LinkedHashMap<>();
    if (!"Ed25519".equals(body.get("algorithm")) || !(body.get("publicKey") instanceof String)) {
      throw new IOException("push key not available (HTTP " + reply.status + ")");
    }
    PushKey k = PushKey.fromSpkiBase64((String) body.get("publicKey"));
    storage.write(KEY_KEY, (String) body.get("publicKey"));
    logger.log(Level.INFO, "push key pinned (trust on first use)");
    return k;
  }

  private void register(Map<String, Object> body) throws IOException {
    Map<String, String> h = headers();
    h.put("content-type", "application/json");
    sentMetadata = Json.stringify(body.get("metadata"));
    HttpReply reply = transport.request(new HttpRequest("POST", pushUrl + "/api/v2/installations", h, Json.stringify(body)));
    if (reply.status != 200) {
      throw new Refused("registration refused: HTTP " + reply.status + " " + errorText(reply.text), retryAfter(reply.status, reply.header("retry-after")));
    }
    Map<String, Object> r = Json.parseObject(reply.text);
    registered = true;
    // Notices must name this account (format 2); a reply without one (an older server) leaves it
    // empty, and every notice is refused (as device-client/core/push-connection.ts).
    accountId = r.get("accountId") instanceof String ? (String) r.get("accountId") : "";
    streamUrl = r.get("streamUrl") instanceof String ? (String) r.get("streamUrl")
        : pushUrl + "/api/v2/stream?package=" + URLEncoder.encode((String) body.get("package"), "UTF-8")
            + "&deviceId=" + URLEncoder.encode((String) body.get("deviceId"), "UTF-8");
    Long hb = Json.asLong(r.get("heartbeatSeconds"));
    if (hb != null && hb > 0) heartbeatMs = hb * 1000;
    logger.log(Level.INFO, "registered: " + r.get("status"));
    if (r.get("status") instanceof String) listener.onStatus((String) r.get("status"));
  }

  private void stream(Map<String, Object> registration) throws IOException {
    Map<String, String> h = headers();
    h.put("accept", "text/event-stream");
    String lastId = storage.read(LAST_ID_KEY);
    if (lastId != null && !lastId.isEmpty()) h.put("last-event-id", lastId);
    HttpStream res = transport.open(new HttpRequest("GET", streamUrl, h, null));
    current = res;
    try {
      if (stopped) return;
      if (res.status() != 200) {
        if (res.status() == 404) registered = false;
        throw new Refused("event stream refused: HTTP " + res.status(), retryAfter(res.status(), res.header("retry-after")));
      }
      SseParser parser = new SseParser();
      Reader in = new InputStreamReader(res.body(), StandardCharsets.UTF_8);
      char[] buf = new char[8192];
      int n;
      while (!stopped && (n = in.read(buf)) > 0) {
        List<SseEvent> events = parser.feed(new String(buf, 0, n));
        for (SseEvent e : events) {
          attempt = 0; // a working stream resets the backoff
          listener.onEvent(e, key, accountId);
          if (e.id != null) storage.write(LAST_ID_KEY, e.id);
        }
        if (parser.retryMs() != null) retryFieldMs = parser.retryMs();
      }
      logger.log(Level.INFO, "event stream ended; reconnecting");
    } finally {
      current = null;
      res.close();
    }
  }

  /**
   * {@code POST /api/v2/heartbeat}: hashes, the metadata when it changed since it was last sent,
   * and {@code lastInstall} when the caller put one in. A 404 means the server forgot the
   * installation: the next cycle registers again. True when the server accepted it (200).
   */
  public boolean heartbeat(Map<String, Object> registration) {
    String metadata = Json.stringify(registration.get("metadata"));
    Map<String, Object> body = Json.object("package", registration.get("package"),
        "deviceId", registration.get("deviceId"), "installedMd5", registration.get("installedMd5"),
        "lastDownloadedMd5", registration.get("lastDownloadedMd5"));
    if (!metadata.equals(sentMetadata)) body.put("metadata", registration.get("metadata"));
    if (registration.get("lastInstall") != null) body.put("lastInstall", registration.get("lastInstall"));
    Map<String, String> h = headers();
    h.put("content-type", "application/json");
    try {
      HttpReply reply = transport.request(new HttpRequest("POST", pushUrl + "/api/v2/heartbeat", h, Json.stringify(body)));
      if (reply.status == 200) {
        sentMetadata = metadata;
        Object s = Json.parseObject(reply.text).get("status");
        if (s instanceof String) listener.onStatus((String) s);
        return true;
      }
      if (reply.status == 404) registered = false;
    } catch (IOException | RuntimeException e) {
      logger.log(Level.DEBUG, "heartbeat failed: " + e.getMessage());
    }
    return false;
  }

  private Long retryAfter(int status, String header) {
    if (status != 429 && status != 503) return null;
    return Backoff.retryAfterMs(header, clock.now());
  }

  private static String errorText(String text) {
    try {
      Object error = Json.parseObject(text).get("error");
      if (error instanceof Map && ((Map<?, ?>) error).get("message") instanceof String) {
        return (String) ((Map<?, ?>) error).get("message");
      }
    } catch (RuntimeException notJson) {
      // fall through
    }
    return text.length() > 200 ? text.substring(0, 200) : text;
  }

  private static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;
    final Long retryAfterMs;

    Refused(String message, Long retryAfterMs) {
      super(message);
      this.retryAfterMs = retryAfterMs;
    }
  }
}
