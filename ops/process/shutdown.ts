/**
 * One shutdown path per process. The first SIGTERM/SIGINT runs the given steps once, under a
 * deadline after which the process exits anyway; a second signal forces exit at once.
 */
import type { Logger } from '../../shared/log';

export function installShutdown(
  log: Logger,
  deadlineMs: number,
  shutdown: () => Promise<void>,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = (reason: string): Promise<void> => {
    if (running) return running;
    log.info({ reason, deadlineMs }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ deadlineMs }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs + 2_000);
    timer.unref();
    running = shutdown().then(
      () => clearTimeout(timer),
      (err: unknown) => {
        clearTimeout(timer);
        log.error({ err: (err as Error).message }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
    return running;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (running) {
      log.warn({ signal }, 'second signal: forcing exit');
      process.exit(1);
    }
    void run(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => run('requested');
}
