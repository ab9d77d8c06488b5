/**
 * When a pair with no document is "not ready yet" (docs/delta-updates.md), on literal job views:
 * only while the app's job is queued, waiting for a retry or running under a live lock; once it
 * started, only for the pairs it listed; before that, when the app stores both APKs.
 */
import { jobAlive, pairPending, plannedPairs } from '../../../../shared/delta/pending';

const PAIR = `${'a'.repeat(32)}/${'b'.repeat(64)}`;
const OTHER = `${'c'.repeat(32)}/${'b'.repeat(64)}`;

test.each([
  ['waiting', false, true],
  ['paused', false, true],
  ['delayed', false, true], // a failed attempt waiting for its retry
  ['prioritized', false, true],
  ['active', true, true],
  ['active', false, false], // its worker died: the lock expired
  ['completed', false, false],
  ['failed', false, false], // no attempt left
  ['unknown', false, false], // never added, or removed
])('a job %s (locked: %s) is alive: %s', (state, locked, alive) => {
  expect(jobAlive({ state, locked, progress: 0 })).toBe(alive);
});

test.each([
  [0, null],
  [null, null],
  [{}, null],
  [{ deltaPairs: 'x' }, null],
  [{ deltaPairs: [] }, []],
  [{ deltaPairs: [PAIR, 7] }, [PAIR]],
])('progress %j lists %j', (progress, pairs) => {
  const got = plannedPairs(progress);
  expect(got === null ? null : [...got]).toEqual(pairs);
});

const stored = (answer: boolean) => () => Promise.resolve(answer);

test('a started job holds only the pairs it listed', async () => {
  const job = { state: 'active', locked: true, progress: { deltaPairs: [PAIR] } };
  expect(await pairPending(job, PAIR, stored(false))).toBe(true);
  expect(await pairPending(job, OTHER, stored(true))).toBe(false);
});

test('a job not started yet holds a pair when the app stores both APKs', async () => {
  const job = { state: 'waiting', locked: false, progress: 0 };
  expect(await pairPending(job, PAIR, stored(true))).toBe(true);
  expect(await pairPending(job, PAIR, stored(false))).toBe(false);
});

test('a dead job holds nothing, even a pair it listed', async () => {
  const crashed = { state: 'active', locked: false, progress: { deltaPairs: [PAIR] } };
  expect(await pairPending(crashed, PAIR, stored(true))).toBe(false);
  const failed = { state: 'failed', locked: false, progress: { deltaPairs: [PAIR] } };
  expect(await pairPending(failed, PAIR, stored(true))).toBe(false);
});
