package dev.apkrelay.client.core.ports;

/** Time, chance and waiting, passed in so that tests use literal values and never sleep. */
public interface Clock {
  /** Milliseconds since the epoch. */
  long now();

  /** In [0, 1): backoff jitter. */
  double random();

  /** Waits {@code ms} milliseconds (a fake clock moves its time instead); an interrupt ends it early. */
  default void sleep(long ms) throws InterruptedException {
    Thread.sleep(ms);
  }

  Clock SYSTEM = new Clock() {
    @Override
    public long now() {
      return System.currentTimeMillis();
    }

    @Override
    public double random() {
      return Math.random();
    }
  };
}
