package dev.apkrelay.client.core.ports;

/** Runs a task later, off the caller's thread (Android: a Handler or an executor). */
public interface Scheduler {
  /** A handle that cancels a scheduled task; calling it twice is harmless. */
  interface Cancel {
    void cancel();
  }

  Cancel schedule(Runnable task, long delayMs);
}
