package dev.apkrelay.client.core.queue;

/**
 * The uncaught-exception handler: writes the report synchronously (the process is dying), then
 * always hands the throwable to the handler that was installed before it, so the platform's crash
 * dialog and other reporters still run. Never throws, never chains to itself, and a failure while
 * reporting (or an exception thrown while reporting one) goes straight to the previous handler.
 */
public final class ChainingUncaughtHandler implements Thread.UncaughtExceptionHandler {
  /** Receives the uncaught throwable; must persist it before returning. */
  public interface Sink {
    void uncaught(Thread thread, Throwable error) throws Exception;
  }

  private final Thread.UncaughtExceptionHandler previous;
  private final Sink sink;
  private final ThreadLocal<Boolean> reporting = new ThreadLocal<>();
  private volatile boolean enabled = true;

  private ChainingUncaughtHandler(Thread.UncaughtExceptionHandler previous, Sink sink) {
    this.previous = previous;
    this.sink = sink;
  }

  /** Installs a handler as the default one, chaining to the current default (which may be null). */
  public static synchronized ChainingUncaughtHandler install(Sink sink) {
    Thread.UncaughtExceptionHandler current = Thread.getDefaultUncaughtExceptionHandler();
    if (current instanceof ChainingUncaughtHandler) {
      ChainingUncaughtHandler mine = (ChainingUncaughtHandler) current;
      mine.enabled = true;
      return mine;
    }
    ChainingUncaughtHandler h = new ChainingUncaughtHandler(current, sink);
    Thread.setDefaultUncaughtExceptionHandler(h);
    return h;
  }

  /** disableExceptionNotification: stop reporting; still chains (removing could drop a later handler). */
  public void setEnabled(boolean on) {
    enabled = on;
  }

  public Thread.UncaughtExceptionHandler previous() {
    return previous;
  }

  @Override
  public void uncaughtException(Thread thread, Throwable error) {
    if (enabled && reporting.get() == null) {
      reporting.set(Boolean.TRUE);
      try {
        sink.uncaught(thread, error);
      } catch (Throwable ignored) {
        // reporting failed: the previous handler still gets the original
      } finally {
        reporting.remove();
      }
    }
    if (previous != null && previous != this) previous.uncaughtException(thread, error);
  }
}
