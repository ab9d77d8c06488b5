package dev.apkrelay.client.core.ports;

/** What the user sees, for reports of unhandled exceptions. Never throws; never blocks for long. */
public interface Screenshots {
  /** A JPEG of the current screen, or null when there is none or it could not be taken. */
  byte[] jpeg();

  Screenshots NONE = () -> null;
}
