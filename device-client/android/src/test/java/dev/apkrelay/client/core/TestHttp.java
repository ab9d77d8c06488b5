package dev.apkrelay.client.core;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Replies of the JDK HTTP server that the tests use as the device API. */
public final class TestHttp {
  private TestHttp() {}

  /** A whole reply with a Content-Length (none for an empty body), then the exchange closed. */
  public static void reply(HttpExchange ex, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
    if (b.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    }
    ex.close();
  }
}
