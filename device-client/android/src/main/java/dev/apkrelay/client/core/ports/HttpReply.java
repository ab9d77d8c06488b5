package dev.apkrelay.client.core.ports;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A whole reply: status, headers (names in lower case) and the body as text. */
public final class HttpReply {
  public final int status;
  public final Map<String, String> headers;
  public final String text;

  public HttpReply(int status, Map<String, String> headers, String text) {
    this.status = status;
    Map<String, String> lower = new LinkedHashMap<>();
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (h.getKey() != null) lower.put(h.getKey().toLowerCase(Locale.ROOT), h.getValue());
    }
    this.headers = Collections.unmodifiableMap(lower);
    this.text = text;
  }

  /** Nullable. */
  public String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }
}
