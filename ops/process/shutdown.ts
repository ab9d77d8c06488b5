/**
 * One shutdown path per process. The first SIGTERM/SIGINT runs the given steps once, under a
 * deadline after which the process exits anyway.
 *
 * One stop often arrives several times: a terminal's Ctrl-C reaches the whole process group, npm
 * forwards it to its child once more, the supervisor forwards SIGTERM to its children, and systemd
 * signals every process of the unit at once. Signals within `forceGraceMs` of the first are that
 * same stop and are ignored; only a deliberate signal after the grace forces exit at once.
 */
import type { Logger } from '../../shared/log';

/** How long after the first signal a repeat is taken for the same stop arriving by another path. */
export const FORCE_GRACE_MS = 1_000;

export interface ShutdownOptions {
  /** The graceful stop's deadline; past it (plus a margin) the process exits anyway. */
  readonly deadlineMs: number;
  readonly forceGraceMs?: number;
  /**
   * Runs synchronously before a forced exit: what must not outlive this process even then (the
   * supervisor kills its children and signals the services it started).
   */
  readonly onForce?: () => void;
  readonly now?: () => number;
}

/** What a signal means given when the first one arrived (pure, for tests). */
export function signalAction(
  firstAt: number | undefined,
  now: number,
  graceMs: number,
): 'stop' | 'same-stop' | 'force' {
  if (firstAt === undefined) return 'stop';
  return now - firstAt < graceMs ? 'same-stop' : 'force';
}

export function installShutdown(
  log: Logger,
  options: ShutdownOptions,
  shutdown: () => Promise<void>,
): () => Promise<void> {
  const { deadlineMs, forceGraceMs = FORCE_GRACE_MS, onForce, now = Date.now } = options;
  let running: Promise<void> | undefined;
  let firstSignalAt: number | undefined;
  const run = (reason: string): Promise<void> => {
    if (running) return running;
    log.info({ reason, deadlineMs }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ deadlineMs }, 'shutdown deadline passed; exiting');
      onForce?.();
      process.exit(1);
    }, deadlineMs + 2_000);
    timer.unref();
    running = shutdown().then(
      () => clearTimeout(timer),
      (err: unknown) => {
        clearTimeout(timer);
        log.error({ err }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
    return running;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    const action = signalAction(firstSignalAt, now(), forceGraceMs);
    if (action === 'same-stop') {
      log.debug({ signal }, 'signal repeated within the grace: same stop, already under way');
      return;
    }
    if (action === 'force') {
      log.warn({ signal }, 'second signal: forcing exit');
      onForce?.();
      process.exit(1);
    }
    firstSignalAt = now();
    void run(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => run('requested');
}
