/**
 * A crash storm for the MongoDB fault tests: devices sending exception reports through the legacy
 * form (`POST /exception`) and the JSON API (`POST /api/v2/exceptions`) while the test stops and
 * starts the store, then resending what was refused until each is acknowledged, then reading back
 * what was stored. Shared by `mongo-stop-exceptions` (one 30 s stop) and `mongo-restarts-exceptions`
 * (three restarts), so both judge replies and count stored reports the same way.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { bullPrefix, closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { EXCEPTION_TEXT } from '../../../shared/exceptions/verdicts';
import { newAccount } from '../../helpers/accounts';
import { deviceIds, registerDevices } from '../../helpers/devices';
import { eventually } from '../../helpers/eventually';
import { request, type Reply } from '../../helpers/http';
import type { TestStack } from '../../helpers/stack';
import {
  encodeForm,
  exceptionQueueState,
  postForm,
  seedApp,
  stackTrace,
} from '../../integration/exceptions/fixtures';

/** Screenshots not starting with it are dropped at intake (issue 24). */
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

export type Outcome = 'acknowledged' | 'retryable' | `unexpected: ${string}`;

export interface Report {
  readonly marker: string;
  readonly deviceId: string;
  readonly via: 'legacy' | 'json';
  readonly screen: string | null;
  outcomes: Outcome[];
}

export interface StoredDoc {
  readonly stack: string[];
  readonly screenshotId: string | null;
  readonly groupId: string;
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

export interface Storm {
  readonly accountId: string;
  readonly reports: Report[];
  acked(): number;
  /** Ends the devices' loops (whatever happened) and waits for them. */
  stop(): Promise<void>;
  /** Resends refused reports (every 5 s, 10 rounds at most) until each is acknowledged. */
  resendRefused(): Promise<void>;
}

/** Registers `devices` devices of a new app and starts each sending a report every 200 ms. */
export async function startStorm(stack: TestStack, devices: number): Promise<Storm> {
  // A plan large enough that the 24 h limit never refuses a report of these tests.
  const { apiKey, id: accountId } = await newAccount(stack, 5_000);
  const app = await seedApp(stack, accountId);
  const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: app.package };
  await registerDevices(target, deviceIds('device-', devices));
  const send = async (r: Report): Promise<Outcome> => {
    try {
      const common = { package: app.package, hash: app.md5, deviceId: r.deviceId };
      const screen = r.screen ? { screen: r.screen } : {};
      if (r.via === 'legacy') {
        const form = { ...common, api_key: apiKey, st: stackTrace(r.marker), ...screen };
        return judge(await postForm(stack.urls.admin, stack.ca, encodeForm(form)), r.via);
      }
      const reply = await request(`${stack.urls.admin}/api/v2/exceptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        json: { ...common, stack: stackTrace(r.marker), ...screen },
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
  const running = Promise.all(Array.from({ length: devices }, (_, d) => device(d)));
  return {
    accountId,
    reports,
    acked: () => reports.filter((r) => r.outcomes.includes('acknowledged')).length,
    async stop() {
      sending = false;
      await running;
    },
    async resendRefused() {
      for (let round = 0; round < 10; round++) {
        const open = reports.filter((r) => !r.outcomes.includes('acknowledged'));
        if (open.length === 0) break;
        await sleep(5_000);
        for (const r of open) r.outcomes.push(await send(r));
      }
    },
  };
}

/** Waits until `n` more reports are acknowledged than now. */
export async function untilAcked(storm: Storm, n: number): Promise<void> {
  const target = storm.acked() + n;
  await eventually(`${target} acknowledged reports`, () => storm.acked() >= target, {
    intervalMs: 50,
  });
}

const pending = (c: Record<string, number>) => c.waiting! + c.active! + c.delayed! + c.prioritized!;

/**
 * The account's stored reports once the exception queue is drained (two looks in a row with
 * nothing pending) or all are stored, polling every second up to `waitMs`; the queue's state is
 * printed when reports are missing, so a shortfall says where they are.
 */
export async function storedWhenDrained(
  stack: TestStack,
  storm: Storm,
  waitMs: number,
): Promise<StoredDoc[]> {
  const deadline = Date.now() + waitMs;
  let docs: StoredDoc[];
  let queue = await exceptionQueueState(stack);
  for (;;) {
    docs = await stack.mongo.db
      .collection<StoredDoc>('exceptions')
      .find(
        { accountId: storm.accountId },
        { projection: { stack: 1, screenshotId: 1, groupId: 1 } },
      )
      .toArray();
    if (docs.length >= storm.reports.length || Date.now() >= deadline) break;
    const before = queue;
    queue = await exceptionQueueState(stack);
    if (pending(before.counts) === 0 && pending(queue.counts) === 0) break;
    await sleep(1_000);
  }
  if (docs.length < storm.reports.length) {
    console.log('exception queue:', await exceptionQueueState(stack));
    console.log('jobs still there:', await pendingJobs(stack));
  }
  return docs;
}

/**
 * A few active and delayed jobs with how long they have been at it and why their last attempt
 * failed (JOB_DEADLINE_EXCEEDED, a step's deadline, a driver error), and their logs (the
 * watchdog's "overdue" line): where a stalled queue is stuck.
 */
async function pendingJobs(stack: TestStack): Promise<unknown[]> {
  const redis = createWorkerRedis(stack.redisUrl, 'test:pending-jobs');
  const queue = new Queue('exception-ingest', {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
  try {
    const jobs = [...(await queue.getActive(0, 4)), ...(await queue.getDelayed(0, 4))];
    return await Promise.all(
      jobs.map(async (j) => ({
        id: j.id,
        attemptsMade: j.attemptsMade,
        activeForMs: j.processedOn ? Date.now() - j.processedOn : null,
        failedReason: j.failedReason,
        logs: (await queue.getJobLogs(j.id!)).logs,
      })),
    );
  } finally {
    await queue.close();
    await closeRedis(redis);
  }
}

/** Reports not stored exactly once, as `marker: stored Nx`. */
export function notStoredOnce(reports: readonly Report[], docs: readonly StoredDoc[]): string[] {
  const stored = new Map<string, number>();
  const markerOf = (line: string) => line.replace(/^java\.lang\.IllegalStateException: /, '');
  for (const d of docs) {
    const marker = markerOf(d.stack[0]!);
    stored.set(marker, (stored.get(marker) ?? 0) + 1);
  }
  return reports
    .filter((r) => stored.get(r.marker) !== 1)
    .map((r) => `${r.marker}: stored ${stored.get(r.marker) ?? 0}x`);
}

/**
 * Screenshots: one GridFS file per report that carried one, none extra. Groups: every stored
 * report counted exactly once (a stop between a group's count and its report's insert makes the
 * job retry; the group's `pending` list keeps the retry from counting again,
 * workers/exceptions/group-pending.ts).
 */
export async function expectScreenshotsAndGroups(
  stack: TestStack,
  storm: Storm,
  docs: readonly StoredDoc[],
): Promise<void> {
  const withScreen = storm.reports.filter((r) => r.screen).length;
  expect(docs.filter((d) => d.screenshotId).length).toBe(withScreen);
  expect(await stack.mongo.db.collection('screenshots.files').countDocuments()).toBe(withScreen);
  const groups = await stack.mongo.db
    .collection<{ _id: string; count: number }>('exception_groups')
    .find({ accountId: storm.accountId })
    .toArray();
  const perGroup = new Map<string, number>();
  for (const d of docs) perGroup.set(d.groupId, (perGroup.get(d.groupId) ?? 0) + 1);
  expect(groups.map((g) => g._id).sort()).toEqual([...perGroup.keys()].sort());
  expect(Object.fromEntries(groups.map((g) => [g._id, g.count]))).toEqual(
    Object.fromEntries(perGroup),
  );
}
