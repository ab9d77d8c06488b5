/**
 * The one runner every benchmark plugs into (ops/bench/*.ts). A bench declares its flags and a
 * `run` that measures and returns its result; the runner reads the command line (the bench's
 * flags, plus `--json` and `--help` for all), prints progress unless `--json`, prints the result
 * as text or as one JSON line, and stops whatever the bench started on the way out: at the end,
 * on an error, and on SIGINT/SIGTERM (then exit code 130). Before it, seven files each had their
 * own copy of the argument loop, the signal handlers and `main()`.
 */

/** A whole number, e.g. `--clients 3`. */
interface WholeFlag {
  readonly kind: 'whole';
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** The value must be a multiple of this (e.g. tenths of a plan). */
  readonly multipleOf?: number;
}

/** A comma-separated list of whole numbers, e.g. `--devices 1000,10000`. */
interface WholesFlag extends Omit<WholeFlag, 'kind' | 'default'> {
  readonly kind: 'wholes';
  readonly default: readonly number[];
}

/** One of a few words, e.g. `--tls off`. */
interface ChoiceFlag {
  readonly kind: 'choice';
  readonly values: readonly string[];
  readonly default: string;
}

/** Some of a few words, comma-separated, kept in the declared order, e.g. `--sides baseline`. */
interface SubsetFlag {
  readonly kind: 'subset';
  readonly values: readonly string[];
  readonly default: readonly string[];
}

/** A bench's flag: how its value is read, its default, and what a wrong value is told. */
export type Flag = (WholeFlag | WholesFlag | ChoiceFlag | SubsetFlag) & {
  /** The refusal of a wrong or missing value. */
  readonly error: string;
  /** What the flag sets, for `--help`. */
  readonly help: string;
};

/** A whole-number flag: its default, its range, its refusal and its help. */
export function whole(
  dflt: number,
  [min, max]: readonly [number, number],
  error: string,
  help: string,
) {
  return { kind: 'whole', default: dflt, min, max, error, help } as const;
}

/** A comma-separated list of whole numbers, each in the range (and a multiple of `multipleOf`). */
export function wholes(
  dflt: readonly number[],
  [min, max, multipleOf]: readonly [number, number, number?],
  error: string,
  help: string,
) {
  const multiple = multipleOf === undefined ? {} : { multipleOf };
  return { kind: 'wholes', default: dflt, min, max, ...multiple, error, help } as const;
}

/** `--name` flags by name (without the dashes). */
export type Flags = Readonly<Record<string, Flag>>;

type ValueOf<F extends Flag> = F extends { kind: 'whole' }
  ? number
  : F extends { kind: 'wholes' }
    ? number[]
    : F extends { kind: 'choice'; values: readonly (infer V)[] }
      ? V
      : F extends { kind: 'subset'; values: readonly (infer V)[] }
        ? V[]
        : never;

/** The parsed command line: every flag's value (its default when not given), and `--json`. */
export type Args<F extends Flags> = { readonly [K in keyof F]: ValueOf<F[K]> } & {
  readonly json: boolean;
};

function inRange(flag: WholeFlag | WholesFlag, n: number): boolean {
  return (
    Number.isInteger(n) &&
    n >= flag.min &&
    n <= flag.max &&
    (flag.multipleOf === undefined || n % flag.multipleOf === 0)
  );
}

/** The value of `flag` read from `text` (undefined when the flag was the last argument). */
function valueOf(flag: Flag, text: string | undefined): unknown {
  const words = (text ?? '').split(',');
  switch (flag.kind) {
    case 'whole': {
      const n = Number(text);
      if (!inRange(flag, n)) throw new Error(flag.error);
      return n;
    }
    case 'wholes': {
      const ns = words.map(Number);
      if (text === undefined || ns.some((n) => !inRange(flag, n))) throw new Error(flag.error);
      return ns;
    }
    case 'choice':
      if (text === undefined || !flag.values.includes(text)) throw new Error(flag.error);
      return text;
    case 'subset': {
      const named = flag.values.filter((v) => words.includes(v));
      if (named.length === 0 || named.length !== words.length) throw new Error(flag.error);
      return named;
    }
  }
}

/**
 * The command line read against a bench's flags: its arguments, or 'help' for `--help`. Throws
 * the flag's own error for a wrong value, and names the known flags for an unknown argument.
 */
export function parseArgs<F extends Flags>(flags: F, argv: readonly string[]): Args<F> | 'help' {
  const values: Record<string, unknown> = { json: false };
  for (const [name, flag] of Object.entries(flags)) values[name] = flag.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--json') values.json = true;
    else if (arg.startsWith('--') && Object.hasOwn(flags, arg.slice(2))) {
      values[arg.slice(2)] = valueOf(flags[arg.slice(2)]!, argv[++i]);
    } else {
      const known = [...Object.keys(flags).map((f) => `--${f}`), '--json', '--help'];
      throw new Error(`unknown argument ${arg} (${known.join(', ')})`);
    }
  }
  return values as Args<F>;
}

/** The `--help` text: the bench's usage, then each flag with its default. */
export function helpText(usage: string, flags: Flags): string {
  const shown = (f: Flag) => (Array.isArray(f.default) ? f.default.join(',') : String(f.default));
  const lines = Object.entries(flags).map(
    ([name, f]) => `  --${name.padEnd(12)} ${f.help} (default ${shown(f)})`,
  );
  lines.push(`  --${'json'.padEnd(12)} one JSON line of results instead of the text report`);
  lines.push(`  --${'help'.padEnd(12)} this text`);
  return `${usage}\n\n${lines.join('\n')}\n`;
}

/** A measured value over its baseline's, as the reports print it: `1.23x` (`-` when undefined). */
export function ratio(value: number, baseline: number, digits = 2): string {
  return times(value / baseline, digits);
}

/** A ratio already divided: `1.23x` (`-` when not a finite number). */
export function times(r: number, digits = 2): string {
  return Number.isFinite(r) ? `${r.toFixed(digits)}x` : '-';
}

/** What a bench is given while it runs. */
export interface BenchContext {
  /** A progress line on standard output (silent with `--json`). */
  readonly say: (text: string) => void;
  /**
   * Something to stop on the way out (a deployment, client processes): every one registered runs
   * once, latest first, at the end, on an error, and on SIGINT/SIGTERM.
   */
  readonly onExit: (stop: () => Promise<unknown> | void) => void;
}

/** What a bench returns: its results as JSON and as the text report. */
export interface BenchResult {
  readonly json: unknown;
  readonly text: string;
}

export interface Bench<F extends Flags> {
  /** The first lines of `--help`: what it measures and how to run it. */
  readonly usage: string;
  readonly flags: F;
  run(args: Args<F>, ctx: BenchContext): Promise<BenchResult>;
}

/** Runs the stops registered so far, latest first; each once, whatever the others do. */
function stopper(): { add(stop: () => Promise<unknown> | void): void; run(): Promise<void> } {
  const stops: Array<() => Promise<unknown> | void> = [];
  let running: Promise<void> | undefined;
  return {
    add: (stop) => void stops.push(stop),
    run: () =>
      (running ??= (async () => {
        for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
      })()),
  };
}

/** Runs `bench` with this process's command line; exit code 1 on failure, 130 on a signal. */
export async function runBench<F extends Flags>(
  bench: Bench<F>,
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  const out = (text: string) => void process.stdout.write(`${text}\n`);
  const stops = stopper();
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`${signal}: stopping the benchmark's processes and services\n`);
    void stops.run().finally(() => process.exit(130));
  };
  try {
    const args = parseArgs(bench.flags, argv);
    if (args === 'help') return void process.stdout.write(helpText(bench.usage, bench.flags));
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const say = (text: string) => (args.json ? undefined : out(text));
    const result = await bench.run(args, { say, onExit: (stop) => stops.add(stop) });
    out(args.json ? JSON.stringify(result.json) : result.text);
  } catch (err) {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await stops.run();
  }
}
