/**
 * Fault: the MongoDB-protocol server stops for 30 s during a burst of exception reports from many
 * devices, through the legacy form (`POST /exception`) and the JSON API (`POST
 * /api/v2/exceptions`). Promise: every acknowledged report (REGISTERED) is stored once after Mongo
 * returns, with its screenshot, and counted once in its group; every unacknowledged one got a 503
 * with Retry-After, and is stored once when the device resends it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { recordFigures } from '../report';
import {
  expectScreenshotsAndGroups,
  notStoredOnce,
  startStorm,
  storedWhenDrained,
  untilAcked,
} from './exception-storm';
import { privateStack } from './private-services';

const MONGO_DOWN_MS = 30_000;
const DEVICES = 12;

const at = privateStack();

test('Mongo stopped for 30 s during an exception burst: acknowledged reports stored once, the others 503 + Retry-After', async () => {
  const storm = await startStorm(at.stack, DEVICES);
  const { reports } = storm;
  let ackedBeforeStop: number;
  let ackedDuringOutage: number;
  try {
    await untilAcked(storm, 30);
    ackedBeforeStop = storm.acked();
    await at.services.stopMongo();
    await sleep(MONGO_DOWN_MS);
    ackedDuringOutage = storm.acked() - ackedBeforeStop;
    await at.services.startMongo();
    await sleep(3_000);
  } finally {
    // The devices stop sending however this went: no loop may outlive the test.
    await storm.stop();
  }
  const faultsInjected = 1;

  const firstPass = reports.map((r) => r.outcomes[0]!);
  expect(firstPass.filter((o) => o.startsWith('unexpected'))).toEqual([]);
  const refused = reports.filter((r) => r.outcomes[0] === 'retryable');
  expect(refused.length).toBeGreaterThan(0); // the outage was felt

  // Devices keep refused reports and resend them (honouring Retry-After) until acknowledged.
  await storm.resendRefused();
  expect(reports.filter((r) => !r.outcomes.includes('acknowledged'))).toEqual([]);
  expect(reports.flatMap((r) => r.outcomes).filter((o) => o.startsWith('unexpected'))).toEqual([]);

  // Stored: wait until the workers have drained what was acknowledged. Jobs that failed during
  // the outage wait out their backoff (up to a minute by then, more on a loaded machine where the
  // restarted store fails them again): wait while any job is pending, up to 7 minutes, within the
  // test's own 10, so a shortfall is reported with the queue's state rather than as a timeout.
  const docs = await storedWhenDrained(at.stack, storm, 420_000);
  const lost = notStoredOnce(reports, docs);
  recordFigures('faults:mongo-stop-exceptions', {
    faultsInjected,
    acknowledgedItems: reports.length,
    acknowledgedLost: lost.length,
  });
  console.log(
    `exceptions: ${reports.length} reports, ${ackedBeforeStop} acknowledged before the stop, ` +
      `${ackedDuringOutage} during the 30 s outage, ${refused.length} refused with 503 then resent`,
  );
  expect(lost).toEqual([]);
  expect(docs).toHaveLength(reports.length); // nothing stored that was not sent, nothing twice
  await expectScreenshotsAndGroups(at.stack, storm, docs);
}, 600_000);
