import * as timers from 'node:timers';
import { promisify } from 'node:util';
import { pendingTimerOrigins, recordTimerOrigins } from '../../../helpers/timer-origins';

test('the ref’d timers still pending are listed with their file and stack; others are not', async () => {
  const g = {
    setTimeout: timers.setTimeout,
    setInterval: timers.setInterval,
    clearTimeout: timers.clearTimeout,
    clearInterval: timers.clearInterval,
  };
  recordTimerOrigins(g, '/checkout/test/some.test.ts');
  const mine = () =>
    pendingTimerOrigins().filter((o) => o.startsWith('/checkout/test/some.test.ts'));
  const before = mine().length;

  const leaked = g.setInterval(function pollForever() {}, 60_000);
  g.clearTimeout(g.setTimeout(() => undefined, 60_000));
  g.setInterval(() => undefined, 60_000).unref();
  let fired = false;
  g.setTimeout(() => (fired = true), 1);
  await promisify(g.setTimeout)(20); // promisify keeps working on the wrapped setTimeout
  try {
    expect(fired).toBe(true);
    const left = mine();
    expect(left).toHaveLength(before + 1);
    expect(left.at(-1)).toMatch(
      /^\/checkout\/test\/some\.test\.ts\n\s+at .*timer-origins\.test\.ts:\d+:\d+/,
    );
  } finally {
    g.clearInterval(leaked);
  }
  expect(mine()).toHaveLength(before);
});
