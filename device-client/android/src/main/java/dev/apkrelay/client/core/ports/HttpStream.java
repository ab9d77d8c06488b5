package dev.apkrelay.client.core.ports;

import java.io.Closeable;
import java.io.InputStream;

/** A reply whose body is read as it arrives: a download or the event stream. */
public interface HttpStream extends Closeable {
  int status();

  /** Nullable; the name in any case. */
  String header(String name);

  InputStream body();

  /** Ends the reply early; a blocked read of {@link #body()} then ends or fails. Never throws. */
  @Override
  void close();
}
