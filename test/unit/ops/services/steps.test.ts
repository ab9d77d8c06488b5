import { formatElapsed, stepLines, stepReporter } from '../../../../ops/services/steps';

test('elapsed times as a person reads them', () => {
  const table: Array<[number, string]> = [
    [0, '0.0 s'],
    [420, '0.4 s'],
    [9_949, '9.9 s'],
    [10_000, '10 s'],
    [59_999, '59 s'],
    [60_000, '1 min 00 s'],
    [125_400, '2 min 05 s'],
    [3_600_000, '60 min 00 s'],
  ];
  expect(table.map(([ms]) => formatElapsed(ms))).toEqual(table.map(([, text]) => text));
});

test('the lines of a step', () => {
  const label = 'building FerretDB 1.24.2 with Go, about 2 minutes on 2 cores';
  expect(stepLines.start(label)).toBe(
    'building FerretDB 1.24.2 with Go, about 2 minutes on 2 cores…',
  );
  expect(stepLines.progress(label, 35_000)).toBe(
    'building FerretDB 1.24.2 with Go, about 2 minutes on 2 cores… still going, 35 s',
  );
  expect(stepLines.done('installing redis-server (apt)', 42_300)).toBe(
    'installing redis-server (apt): done (42 s)',
  );
  expect(stepLines.done('looking for redis-server', 3, '/usr/bin/redis-server')).toBe(
    'looking for redis-server: /usr/bin/redis-server (0.0 s)',
  );
  expect(stepLines.failed('installing postgresql-15 (apt)', 3_100, new Error('exit 100'))).toBe(
    'installing postgresql-15 (apt): failed after 3.1 s: exit 100',
  );
});

/** A clock the test moves, and an output that keeps what was written. */
function fixture(isTTY: boolean) {
  let now = 1_000;
  const written: string[] = [];
  const out = { isTTY, write: (text: string) => written.push(text) };
  return { out, written, clock: () => now, advance: (ms: number) => (now += ms) };
}

test('a step prints when it starts and when it ends, with its elapsed time; not a terminal: no progress', async () => {
  const f = fixture(false);
  const steps = stepReporter(f.out, { clock: f.clock, everyMs: 1 });
  // The marker: a terminal's reporter with the same period, run alongside, prints three progress
  // lines; by then the other would have printed some too.
  const tty = fixture(true);
  const marker = stepReporter(tty.out, { clock: tty.clock, everyMs: 1 });
  const value = await steps.run(
    'looking for redis-server',
    async () => {
      expect(f.written).toEqual(['apkrelay: looking for redis-server…\n']);
      await marker.run('marker', async () => {
        while (tty.written.length < 4) await new Promise((r) => setTimeout(r, 1));
      });
      f.advance(1_500);
      return '/usr/bin/redis-server';
    },
    (bin) => bin,
  );
  expect(value).toBe('/usr/bin/redis-server');
  expect(f.written).toEqual([
    'apkrelay: looking for redis-server…\n',
    'apkrelay: looking for redis-server: /usr/bin/redis-server (1.5 s)\n',
  ]);
});

test('on a terminal a long step prints a progress line each period; a failure says so and is rethrown', async () => {
  const f = fixture(true);
  const steps = stepReporter(f.out, { clock: f.clock, everyMs: 5 });
  const running = steps.run('installing redis-server (apt)', async () => {
    // Wait for two progress lines, moving the clock 5 s before each.
    for (let seen = 0; seen < 2;) {
      f.advance(5_000); // the clock as the next period will read it
      const before = f.written.length;
      while (f.written.length === before) await new Promise((r) => setTimeout(r, 1));
      seen++;
    }
    throw new Error('apt-get exited with 100');
  });
  await expect(running).rejects.toThrow('apt-get exited with 100');
  expect(f.written).toEqual([
    'apkrelay: installing redis-server (apt)…\n',
    'apkrelay: installing redis-server (apt)… still going, 5.0 s\n',
    'apkrelay: installing redis-server (apt)… still going, 10 s\n',
    'apkrelay: installing redis-server (apt): failed after 10 s: apt-get exited with 100\n',
  ]);
});
