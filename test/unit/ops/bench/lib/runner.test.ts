/**
 * The bench runner's command line (ops/bench/lib/runner.ts), with literal flag tables shaped like
 * the benches' own and literal argument lists: defaults, each kind of value, the flags' own
 * refusals, unknown arguments, `--json` and `--help`; and the ratio format the reports print.
 */
import {
  helpText,
  parseArgs,
  ratio,
  times,
  whole,
  wholes,
  type Flags,
} from '../../../../../ops/bench/lib/runner';

const FLAGS = {
  devices: {
    kind: 'wholes',
    default: [1_000, 10_000],
    min: 1,
    max: 20_000,
    error: '--devices takes counts from 1 to 20000',
    help: 'devices per round',
  },
  clients: {
    kind: 'whole',
    default: 3,
    min: 1,
    max: 8,
    error: '--clients takes a count of client processes from 1 to 8',
    help: 'client processes',
  },
  tls: {
    kind: 'choice',
    values: ['on', 'off'],
    default: 'on',
    error: '--tls takes on or off',
    help: 'TLS',
  },
  sides: {
    kind: 'subset',
    values: ['apkrelay', 'baseline', 'floor'],
    default: ['apkrelay', 'baseline', 'floor'],
    error: '--sides takes apkrelay, baseline and/or floor',
    help: 'what is measured',
  },
} as const satisfies Flags;

const TENTHS = {
  devices: {
    kind: 'wholes',
    default: [1_000],
    min: 10,
    max: 20_000,
    multipleOf: 10,
    error: '--devices takes multiples of 10 up to 20000',
    help: 'plan sizes',
  },
} as const satisfies Flags;

const DEFAULTS = {
  json: false,
  devices: [1_000, 10_000],
  clients: 3,
  tls: 'on',
  sides: ['apkrelay', 'baseline', 'floor'],
};

test('no argument: every default, and no JSON', () => {
  expect(parseArgs(FLAGS, [])).toEqual(DEFAULTS);
});

test('each kind of value is read from the argument after its flag', () => {
  expect(
    parseArgs(FLAGS, ['--devices', '10,200', '--clients', '8', '--tls', 'off', '--json']),
  ).toEqual({ ...DEFAULTS, json: true, devices: [10, 200], clients: 8, tls: 'off' });
});

test('a subset keeps the declared order, whatever order it is named in', () => {
  expect(parseArgs(FLAGS, ['--sides', 'floor,apkrelay'])).toMatchObject({
    sides: ['apkrelay', 'floor'],
  });
});

test.each([
  [['--clients', '0'], '--clients takes a count of client processes from 1 to 8'],
  [['--clients', '9'], '--clients takes a count of client processes from 1 to 8'],
  [['--clients', '2.5'], '--clients takes a count of client processes from 1 to 8'],
  [['--clients'], '--clients takes a count of client processes from 1 to 8'],
  [['--devices', '1000,x'], '--devices takes counts from 1 to 20000'],
  [['--devices', '20001'], '--devices takes counts from 1 to 20000'],
  [['--devices'], '--devices takes counts from 1 to 20000'],
  [['--tls', 'maybe'], '--tls takes on or off'],
  [['--tls'], '--tls takes on or off'],
  [['--sides', 'baseline,nginx'], '--sides takes apkrelay, baseline and/or floor'],
  [['--sides', 'baseline,baseline'], '--sides takes apkrelay, baseline and/or floor'],
  [['--sides', ''], '--sides takes apkrelay, baseline and/or floor'],
])('%j is refused with the flag’s own message', (argv, message) => {
  expect(() => parseArgs(FLAGS, argv)).toThrow(new Error(message));
});

test('a list whose values must be multiples refuses any other', () => {
  expect(parseArgs(TENTHS, ['--devices', '10,20000'])).toMatchObject({ devices: [10, 20_000] });
  expect(() => parseArgs(TENTHS, ['--devices', '1005'])).toThrow(
    new Error('--devices takes multiples of 10 up to 20000'),
  );
});

test('an unknown argument is refused naming the flags there are', () => {
  expect(() => parseArgs(TENTHS, ['--concurrency', '4'])).toThrow(
    new Error('unknown argument --concurrency (--devices, --json, --help)'),
  );
  expect(() => parseArgs(TENTHS, ['1000'])).toThrow(
    new Error('unknown argument 1000 (--devices, --json, --help)'),
  );
  expect(() => parseArgs(TENTHS, ['--toString', '1'])).toThrow(
    new Error('unknown argument --toString (--devices, --json, --help)'),
  );
});

test('--help (or -h) asks for the help text, wherever it is', () => {
  expect(parseArgs(FLAGS, ['--help'])).toBe('help');
  expect(parseArgs(FLAGS, ['--clients', '2', '-h'])).toBe('help');
  expect(helpText('Benchmark: x.\n  npm run bench:x', TENTHS)).toBe(
    'Benchmark: x.\n  npm run bench:x\n\n' +
      '  --devices      plan sizes (default 1000)\n' +
      '  --json         one JSON line of results instead of the text report\n' +
      '  --help         this text\n',
  );
});

test('whole() and wholes() build the flags they name', () => {
  expect(whole(3, [1, 8], 'e', 'h')).toEqual({
    kind: 'whole',
    default: 3,
    min: 1,
    max: 8,
    error: 'e',
    help: 'h',
  });
  expect(wholes([10], [10, 100, 10], 'e', 'h')).toEqual({
    kind: 'wholes',
    default: [10],
    min: 10,
    max: 100,
    multipleOf: 10,
    error: 'e',
    help: 'h',
  });
  expect(wholes([1], [1, 2], 'e', 'h')).not.toHaveProperty('multipleOf');
});

test('ratios print as the reports print them, a dash when undefined', () => {
  expect(ratio(3, 2)).toBe('1.50x');
  expect(ratio(1, 3, 1)).toBe('0.3x');
  expect(ratio(1, 0)).toBe('-');
  expect(ratio(0, 0)).toBe('-');
  expect(times(12.345)).toBe('12.35x');
  expect(times(Number.NaN, 1)).toBe('-');
});
