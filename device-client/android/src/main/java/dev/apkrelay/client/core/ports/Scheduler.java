package dev.apkrelay.client.core.ports;

/** Runs a task later (Android: a Handler on the main looper; tests: a manual clock). */
public interface Scheduler {
  /** Cancels a scheduled task; calling it twice is harmless. */
  interface Cancel {
    void cancel();
  }

  Cancel schedule(Runnable task, long delayMs);
}
