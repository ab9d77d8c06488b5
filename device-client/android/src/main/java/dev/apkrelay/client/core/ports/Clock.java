package dev.apkrelay.client.core.ports;

/** Time and chance, passed in so that tests use literal values. */
public interface Clock {
  /** Milliseconds since the epoch. */
  long now();

  /** In [0, 1): backoff jitter. */
  double random();

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
