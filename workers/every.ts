/**
 * A look repeated every `everyMs` (the watchdogs of this folder), one at a time: a look waiting
 * for a store that went away must not have the next ones pile up behind it. The timer does not
 * keep the process alive.
 */
export interface Repeating {
  stop(): void;
  /** The look in flight, if any (resolves when it ends; never rejects). */
  inFlight(): Promise<void>;
}

export function repeat(
  everyMs: number,
  look: () => Promise<unknown>,
  onError: (err: Error) => void,
): Repeating {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= look()
      .then(() => undefined, onError)
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    inFlight: async () => {
      await running;
    },
  };
}
