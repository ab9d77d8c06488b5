/**
 * What a first start is doing, said as it happens. Installing Redis and PostgreSQL with apt and
 * building FerretDB with Go take minutes on a fresh machine; a start that prints nothing meanwhile
 * looks hung, and people press Ctrl-C. Each step prints a line when it starts and one when it ends
 * (with its elapsed time, or that it failed), and, on a terminal, a progress line every few
 * seconds while it runs. Lines go to standard error: standard output stays the JSON log of
 * `start` and the JSON answer of `--json`. The line texts are pure functions (tested with literal
 * inputs); the reporter only adds the clock and the timer.
 */

/** `0.4 s`, `12 s`, `2 min 05 s`. */
export function formatElapsed(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

export const stepLines = {
  start: (label: string) => `${label}…`,
  progress: (label: string, ms: number) => `${label}… still going, ${formatElapsed(ms)}`,
  done: (label: string, ms: number, result?: string) =>
    `${label}: ${result ?? 'done'} (${formatElapsed(ms)})`,
  failed: (label: string, ms: number, err: Error) =>
    `${label}: failed after ${formatElapsed(ms)}: ${err.message}`,
};

export interface Steps {
  /** Runs `work` as one step; `describe` turns its value into the end line's result. */
  run<T>(label: string, work: () => Promise<T>, describe?: (value: T) => string): Promise<T>;
}

/** Steps that print nothing (library callers, tests of other things). */
export const silentSteps: Steps = { run: (_label, work) => work() };

export interface StepOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface StepOptions {
  /** Progress lines this often while a step runs, when `out` is a terminal. Default 5 s. */
  readonly everyMs?: number;
  readonly clock?: () => number;
}

export function stepReporter(out: StepOutput, options: StepOptions = {}): Steps {
  const clock = options.clock ?? (() => performance.now());
  const everyMs = options.everyMs ?? 5_000;
  const say = (line: string) => out.write(`apkrelay: ${line}\n`);
  return {
    async run(label, work, describe) {
      const started = clock();
      say(stepLines.start(label));
      const timer = out.isTTY
        ? setInterval(() => say(stepLines.progress(label, clock() - started)), everyMs)
        : undefined;
      timer?.unref();
      try {
        const value = await work();
        say(stepLines.done(label, clock() - started, describe?.(value)));
        return value;
      } catch (err) {
        say(stepLines.failed(label, clock() - started, err as Error));
        throw err;
      } finally {
        clearInterval(timer);
      }
    },
  };
}
