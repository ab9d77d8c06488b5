/**
 * The lock a worker holds on a queue's jobs: JOB_LOCK_MS, but never shorter than the queue's own
 * floor; `delta-generate` has 5 minutes, since one generation blocks its worker's event loop for
 * longer than the default 30 s lock (README, JOB_LOCK_MS).
 */
import { deltaGenerateQueue } from '../../../shared/queues/delta-generate';
import { housekeepingQueue } from '../../../shared/queues/housekeeping';
import { lockOf } from '../../../workers/runtime';

test.each([
  [undefined, housekeepingQueue, 30_000],
  [30_000, housekeepingQueue, 30_000],
  [5_000, housekeepingQueue, 5_000],
  [undefined, deltaGenerateQueue, 300_000],
  [30_000, deltaGenerateQueue, 300_000],
  [600_000, deltaGenerateQueue, 600_000],
])('JOB_LOCK_MS %s: the lock is %#', (lockMs, queue, expected) => {
  expect(lockOf(lockMs === undefined ? {} : { lockMs }, queue)).toBe(expected);
});
