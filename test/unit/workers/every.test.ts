import { repeat } from '../../../workers/every';

test('a look still running when the next tick comes is not started again; the next tick after it is', async () => {
  let started = 0;
  let release: () => void = () => undefined;
  const errors: string[] = [];
  const looks = repeat(
    1,
    () => {
      started++;
      return started === 1
        ? new Promise<void>((r) => (release = r))
        : Promise.reject(new Error(`look ${started}`));
    },
    (err) => errors.push(err.message),
  );
  try {
    // Many ticks pass while the first look waits: the marker is a second repeat() of the same
    // period that has looked five times meanwhile.
    let ticks = 0;
    const marker = repeat(
      1,
      () => Promise.resolve(ticks++),
      () => undefined,
    );
    while (ticks < 5) await new Promise((r) => setTimeout(r, 1));
    marker.stop();
    expect(started).toBe(1);
    release();
    await looks.inFlight();
    while (errors.length === 0) await new Promise((r) => setTimeout(r, 1));
    expect(errors[0]).toBe('look 2');
  } finally {
    looks.stop();
  }
});
