package dev.apkrelay.client.core.ports;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** One HTTP request: method, absolute URL, headers (names in lower case), optional JSON body. */
public final class HttpRequest {
  public final String method;
  public final String url;
  public final Map<String, String> headers;
  /** Nullable; sent as UTF-8. */
  public final String body;

  public HttpRequest(String method, String url, Map<String, String> headers, String body) {
    this.method = method;
    this.url = url;
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    this.body = body;
  }
}
