/**
 * Fault: the MongoDB-protocol server stops for 30 s during a burst of exception reports from many
 * devices, through the legacy form (`POST /exception`) and the JSON API (`POST
 * /api/v2/exceptions`). Promise: every acknowledged report (REGISTERED) is stored once after Mongo
 * returns, with its screenshot, and counted once in its group; every unacknowledged one got a 503
 * with Retry-After, and is stored once when the device resends it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EXCEPTION_TEXT } from '../../../shared/exceptions/verdicts';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { deviceIds, registerDevices } from '../../helpers/devices';
import { request, type Reply } from '../../helpers/http';
import type { TestStack } from '../../helpers/stack';
import {
  encodeForm,
  exceptionQueueState,
  postForm,
  seedApp,
  stackTrace,
} from '../../integration/exceptions/fixtures';
import { recordFigures } from '../report';
import { usePrivateStack, type PrivateServices } from './private-services';

/** Screenshots not starting with it are dropped at intake (issue 24). */
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

const MONGO_DOWN_MS = 30_000;
const DEVICES = 12;

let services: PrivateServices;
let stack: TestStack;
usePrivateStack((s, st) => ([services, stack] = [s, st]));

type Outcome = 'acknowledged' | 'retryable' | `unexpected: ${string}`;

interface Report {
  readonly marker: string;
  readonly deviceId: string;
  readonly via: 'legacy' | 'json';
  readonly screen: string | null;
  outcomes: Outcome[];
}

function judge(reply: Reply, via: Report['via']): Outcome {
  if (reply.status === 503) {
    return reply.headers['retry-after'] ? 'retryable' : `unexpected: 503 without Retry-After`;
  }
  if (via === 'legacy' && reply.status === 200 && reply.text === EXCEPTION_TEXT.REGISTERED) {
    return 'acknowledged';
  }
  if (via === 'json' && reply.status === 202) {
    const body = reply.json<{ status?: string; reportId?: string }>();
    if (body.status === 'REGISTERED' && body.reportId) return 'acknowledged';
  }
  return `unexpected: ${reply.status} ${reply.text.slice(0, 200)}`;
}

test('Mongo stopped for 30 s during an exception burst: acknowledged reports stored once, the others 503 + Retry-After', async () => {
  // A plan large enough that the 24 h limit never refuses a report of this test.
  const { apiKey, id: accountId } = await newAccount(stack, 5_000);
  const app = await seedApp(stack, accountId);
  const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: app.package };
  await registerDevices(target, deviceIds('device-', DEVICES));
  const send = async (r: Report): Promise<Outcome> => {
    try {
      if (r.via === 'legacy') {
        const form = {
          package: app.package,
          api_key: apiKey,
          hash: app.md5,
          deviceId: r.deviceId,
          st: stackTrace(r.marker),
          ...(r.screen ? { screen: r.screen } : {}),
        };
        return judge(await postForm(stack.urls.admin, stack.ca, encodeForm(form)), r.via);
      }
      const reply = await request(`${stack.urls.admin}/api/v2/exceptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        json: {
          package: app.package,
          hash: app.md5,
          deviceId: r.deviceId,
          stack: stackTrace(r.marker),
          ...(r.screen ? { screen: r.screen } : {}),
        },
        ca: stack.ca,
      });
      return judge(reply, r.via);
    } catch (err) {
      return `unexpected: ${(err as Error).message}`;
    }
  };

  const reports: Report[] = [];
  let sending = true;
  const device = async (d: number) => {
    for (let seq = 0; sending; seq++) {
      const r: Report = {
        marker: `fault d${d} #${seq}`,
        deviceId: `device-${d}`,
        via: d % 2 === 0 ? 'legacy' : 'json',
        // Every third report carries a small screenshot (GridFS `screenshots`).
        screen:
          seq % 3 === 0
            ? Buffer.concat([JPEG_MAGIC, Buffer.from(`jpeg of d${d} #${seq}`)]).toString('base64')
            : null,
        outcomes: [],
      };
      reports.push(r);
      r.outcomes.push(await send(r));
      await sleep(200);
    }
  };
  const devices = Promise.all(Array.from({ length: DEVICES }, (_, d) => device(d)));
  const acked = () => reports.filter((r) => r.outcomes.includes('acknowledged')).length;
  let ackedBeforeStop: number;
  let ackedDuringOutage: number;
  try {
    await eventually('30 acknowledged reports', () => acked() >= 30, { intervalMs: 50 });
    ackedBeforeStop = acked();
    await services.stopMongo();
    await sleep(MONGO_DOWN_MS);
    ackedDuringOutage = acked() - ackedBeforeStop;
    await services.startMongo();
    await sleep(3_000);
  } finally {
    // The devices stop sending however this went: no loop may outlive the test.
    sending = false;
    await devices;
  }
  const faultsInjected = 1;

  const firstPass = reports.map((r) => r.outcomes[0]!);
  expect(firstPass.filter((o) => o.startsWith('unexpected'))).toEqual([]);
  const refused = reports.filter((r) => r.outcomes[0] === 'retryable');
  expect(refused.length).toBeGreaterThan(0); // the outage was felt

  // Devices keep refused reports and resend them (honouring Retry-After) until acknowledged.
  for (let round = 0; round < 10; round++) {
    const open = reports.filter((r) => !r.outcomes.includes('acknowledged'));
    if (open.length === 0) break;
    await sleep(5_000);
    for (const r of open) r.outcomes.push(await send(r));
  }
  expect(reports.filter((r) => !r.outcomes.includes('acknowledged'))).toEqual([]);
  expect(reports.flatMap((r) => r.outcomes).filter((o) => o.startsWith('unexpected'))).toEqual([]);

  // Stored: wait until the workers have drained what was acknowledged. Jobs that failed during
  // the outage wait out their backoff (up to a minute by then, more on a loaded machine where the
  // restarted store fails them again): wait while any job is pending, up to 7 minutes, within the
  // test's own 10, so a shortfall is reported with the queue's state rather than as a timeout.
  const stored = new Map<string, number>();
  const markerOf = (stack0: string) => stack0.replace(/^java\.lang\.IllegalStateException: /, '');
  const deadline = Date.now() + 420_000;
  let docs: Array<{ stack: string[]; screenshotId: string | null; groupId: string }> = [];
  let queue = await exceptionQueueState(stack);
  while (Date.now() < deadline) {
    docs = await stack.mongo.db
      .collection<{ stack: string[]; screenshotId: string | null; groupId: string }>('exceptions')
      .find({ accountId }, { projection: { stack: 1, screenshotId: 1, groupId: 1 } })
      .toArray();
    if (docs.length >= reports.length) break;
    const before = queue;
    queue = await exceptionQueueState(stack);
    const pending = (c: Record<string, number>) =>
      c.waiting! + c.active! + c.delayed! + c.prioritized!;
    if (pending(before.counts) === 0 && pending(queue.counts) === 0) break;
    await sleep(1_000);
  }
  // When reports are missing, say where they are: failed jobs (and why) or still pending.
  if (docs.length < reports.length)
    console.log('exception queue:', await exceptionQueueState(stack));
  for (const d of docs)
    stored.set(markerOf(d.stack[0]!), (stored.get(markerOf(d.stack[0]!)) ?? 0) + 1);
  const lost = reports.filter((r) => stored.get(r.marker) !== 1);
  recordFigures('faults:mongo-stop-exceptions', {
    faultsInjected,
    acknowledgedItems: reports.length,
    acknowledgedLost: lost.length,
  });
  console.log(
    `exceptions: ${reports.length} reports, ${ackedBeforeStop} acknowledged before the stop, ` +
      `${ackedDuringOutage} during the 30 s outage, ${refused.length} refused with 503 then resent`,
  );
  expect(lost.map((r) => `${r.marker}: stored ${stored.get(r.marker) ?? 0}x`)).toEqual([]);
  expect(docs).toHaveLength(reports.length); // nothing stored that was not sent, nothing twice

  // Screenshots: one GridFS file per report that carried one, none extra.
  const withScreen = reports.filter((r) => r.screen).length;
  expect(docs.filter((d) => d.screenshotId).length).toBe(withScreen);
  expect(await stack.mongo.db.collection('screenshots.files').countDocuments()).toBe(withScreen);
  // Groups: every stored report counted exactly once. A MongoDB stop between a group's count and
  // its report's insert (or during the count, after it was applied but before its reply) makes
  // the job retry; the group's `pending` list proves the report counted, so the retry does not
  // count it again (workers/processors/group-pending.ts).
  const groups = await stack.mongo.db
    .collection<{ _id: string; count: number }>('exception_groups')
    .find({ accountId })
    .toArray();
  const perGroup = new Map<string, number>();
  for (const d of docs) perGroup.set(d.groupId, (perGroup.get(d.groupId) ?? 0) + 1);
  expect(groups.map((g) => g._id).sort()).toEqual([...perGroup.keys()].sort());
  expect(Object.fromEntries(groups.map((g) => [g._id, g.count]))).toEqual(
    Object.fromEntries(perGroup),
  );
}, 600_000);
