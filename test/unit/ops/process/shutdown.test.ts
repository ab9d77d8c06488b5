import { FORCE_GRACE_MS, signalAction } from '../../../../ops/process/shutdown';

describe('signalAction: what a SIGINT/SIGTERM means', () => {
  test('the first signal starts the stop', () => {
    expect(signalAction(undefined, 5_000, 1_000)).toBe('stop');
  });

  test.each([
    [0, 'the same instant (group signal and npm forwarding)'],
    [999, 'just inside the grace'],
  ])('%i ms after the first: the same stop, ignored (%s)', (after) => {
    expect(signalAction(10_000, 10_000 + after, 1_000)).toBe('same-stop');
  });

  test.each([1_000, 1_500, 60_000])(
    '%i ms after the first: a deliberate second, forces',
    (after) => {
      expect(signalAction(10_000, 10_000 + after, 1_000)).toBe('force');
    },
  );

  test('the grace is one second, as the stop contract says', () => {
    expect(FORCE_GRACE_MS).toBe(1_000);
  });
});
