/**
 * Fault: the MongoDB-protocol server is stopped for 30 s and started again, three times, during
 * a crash storm (issue 33: after one restart, the exception worker's 16 slots once stayed active for
 * minutes and 319 acknowledged reports sat in the queue). Promise: after the last restart the
 * queue drains within a bound (the job budget plus the longest backoff a job can be in), every
 * acknowledged report is stored exactly once with its screenshot and counted once in its group,
 * and nothing is left waiting, active, delayed or failed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { exceptionIngestQueue } from '../../../shared/queues/exception-ingest';
import { exceptionQueueState } from '../../integration/exceptions/fixtures';
import { recordFigures } from '../report';
import * as crashStorm from './exception-storm';
import { privateStack } from './private-services';

const RESTARTS = 3;
/** As long as mongo-stop-exceptions' outage, which once left the worker stalled after it. */
const MONGO_DOWN_MS = 30_000;
const DEVICES = 12;
/**
 * After the last restart: one job budget (an attempt stuck on the old connection fails at it)
 * plus the backoff of a job that failed its 9th attempt (1 s × 2^8): about 7 minutes.
 */
const DRAIN_BOUND_MS = exceptionIngestQueue.budgetMs + 256_000;

const at = privateStack();

test('Mongo restarted three times during a crash storm: the queue drains after the last, every acknowledged report stored once', async () => {
  const storm = await crashStorm.startStorm(at.stack, DEVICES);
  const { reports } = storm;
  let lastRestart = 0;
  try {
    await crashStorm.untilAcked(storm, 30);
    for (let i = 0; i < RESTARTS; i++) {
      await at.services.stopMongo();
      await sleep(MONGO_DOWN_MS);
      await at.services.startMongo();
      lastRestart = Date.now();
      // The store is back when reports are acknowledged again (intake needs MongoDB).
      await crashStorm.untilAcked(storm, 20);
    }
  } finally {
    await storm.stop();
  }
  const refused = reports.filter((r) => r.outcomes[0] === 'retryable');
  expect(refused.length).toBeGreaterThan(0); // the outages were felt
  await storm.resendRefused();
  expect(reports.filter((r) => !r.outcomes.includes('acknowledged'))).toEqual([]);
  expect(reports.flatMap((r) => r.outcomes).filter((o) => o.startsWith('unexpected'))).toEqual([]);

  const docs = await crashStorm.storedWhenDrained(
    at.stack,
    storm,
    lastRestart + DRAIN_BOUND_MS - Date.now(),
  );
  const drainedAfterMs = Date.now() - lastRestart;
  const queue = await exceptionQueueState(at.stack);
  const lost = crashStorm.notStoredOnce(reports, docs);
  recordFigures('faults:mongo-restarts-exceptions', {
    faultsInjected: RESTARTS,
    acknowledgedItems: reports.length,
    acknowledgedLost: lost.length,
  });
  console.log(
    `exceptions: ${reports.length} reports over ${RESTARTS} restarts, ${refused.length} refused ` +
      `with 503 then resent; ${docs.length} stored ${Math.round(drainedAfterMs / 1000)} s after ` +
      `the last restart (bound ${DRAIN_BOUND_MS / 1000} s); queue ${JSON.stringify(queue.counts)}`,
  );
  expect(lost).toEqual([]);
  expect(docs).toHaveLength(reports.length);
  expect(queue.counts).toEqual({
    waiting: 0,
    active: 0,
    delayed: 0,
    prioritized: 0,
    failed: 0,
    paused: 0,
  });
  await crashStorm.expectScreenshotsAndGroups(at.stack, storm, docs);
}, 900_000);
