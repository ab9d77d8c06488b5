package dev.apkrelay.client.core.ports;

import java.io.IOException;

/**
 * HTTP as the core needs it. Network failures throw IOException (the caller retries); every HTTP
 * status is a reply, whatever it is. {@link UrlConnectionTransport} is the implementation for
 * Android and the JVM; tests plug in their own.
 */
public interface HttpTransport {
  HttpReply request(HttpRequest request) throws IOException;

  HttpStream open(HttpRequest request) throws IOException;
}
