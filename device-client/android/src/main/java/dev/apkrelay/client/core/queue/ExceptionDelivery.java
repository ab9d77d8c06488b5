package dev.apkrelay.client.core.queue;

import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs an {@link ExceptionQueue} on the engine's executor: reports are queued at once (synchronously
 * when asked, for the uncaught handler) and delivered one delivery loop at a time, only once the
 * installation's registration was answered in this run (the server refuses reports from devices
 * it does not know: EXCEPTION_INSTALLATION_UNKNOWN).
 */
public final class ExceptionDelivery {
  private final ScheduledExecutorService executor;
  private final Logger logger;
  private volatile ExceptionQueue queue;
  private volatile boolean registered;
  private volatile boolean stopped;
  private volatile int maxSize;
  private boolean delivering;

  public ExceptionDelivery(ScheduledExecutorService executor, Logger logger, int maxSize) {
    this.executor = executor;
    this.logger = logger;
    this.maxSize = maxSize;
  }

  /** Takes the loaded queue (on the executor) and starts delivering what it holds. */
  public void start(ExceptionQueue loaded) {
    queue = loaded;
    deliver();
  }

  public void stop() {
    stopped = true;
  }

  public int maxSize() {
    return maxSize;
  }

  /** The registration was answered: held reports may go. Only the first call matters. */
  public void registered() {
    if (registered) return;
    registered = true;
    ExceptionQueue q = queue;
    if (q != null) q.registered();
    deliver();
  }

  /** A registration attempt failed before any succeeded: held reports say why. */
  public void registrationFailed(String reason) {
    ExceptionQueue q = queue;
    if (!registered && q != null) q.registrationFailed(reason);
  }

  /** Queues a report (synchronously persisted when {@code sync}) and delivers it in the background. */
  public void report(ExceptionReport report, boolean sync) {
    Runnable add = () -> {
      try {
        queue.enqueue(report);
      } catch (IOException e) {
        logger.log(Level.ERROR, "exception queue not saved: " + e.getMessage());
      }
      deliver();
    };
    if (sync && queue != null) add.run();
    else executor.execute(add);
  }

  public void setMaxSize(int size) {
    maxSize = size;
    executor.execute(() -> {
      try {
        ExceptionQueue q = queue;
        if (q != null) q.setMaxSize(size);
      } catch (IOException e) {
        logger.log(Level.ERROR, "exception queue not saved: " + e.getMessage());
      }
    });
  }

  private synchronized void deliver() {
    if (delivering || stopped || queue == null || !registered) return;
    delivering = true;
    executor.execute(() -> {
      long wait;
      try {
        wait = queue.deliver();
      } catch (IOException e) {
        wait = 60_000;
      }
      synchronized (this) {
        delivering = false;
      }
      if (wait != ExceptionQueue.EMPTY && !stopped) {
        executor.schedule(this::deliver, wait, TimeUnit.MILLISECONDS);
      }
    });
  }
}
