/**
 * Helpers for the exception tests: an app with one APK seeded straight into the catalogue (the
 * upload pipeline has its own tests), and the PushLink exception form, encoded the way the device
 * library sends it.
 */
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import { ObjectId } from 'mongodb';
import type { ApkDoc, AppDoc } from '../../../shared/catalog/types';
import { bullPrefix, closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { eventuallyValue } from '../../helpers/eventually';
import { request, type Reply } from '../../helpers/http';
import type { TestStack } from '../../helpers/stack';

export interface SeededApp {
  readonly appId: string;
  readonly package: string;
  readonly md5: string;
}

let n = 0;

export async function seedApp(
  stack: Pick<TestStack, 'mongo'>,
  accountId: string,
  options: { package?: string; label?: string | null } = {},
): Promise<SeededApp> {
  const pkg = options.package ?? `dev.apkrelay.crash${++n}`;
  const now = new Date();
  const app: AppDoc = {
    _id: new ObjectId(),
    accountId,
    package: pkg,
    label: options.label === undefined ? 'Crash Test App' : options.label,
    signerSha256: 'a'.repeat(64),
    currentApkId: null,
    currentVersion: 0,
    createdAt: now,
    updatedAt: now,
  };
  const md5 = createHash('md5').update(`${pkg}-${n}`).digest('hex');
  const apk: ApkDoc = {
    _id: new ObjectId(),
    appId: app._id,
    accountId,
    package: pkg,
    versionCode: 7,
    versionName: '1.7',
    minSdk: 24,
    targetSdk: 34,
    label: app.label,
    debuggable: false,
    schemes: { v1: false, v2: true, v3: false, v31: false },
    md5,
    sha256: createHash('sha256').update(md5).digest('hex'),
    size: 1,
    signerSha256: app.signerSha256,
    lineage: [],
    whatsnew: null,
    uploadedAt: now,
    uploader: accountId,
    uploadId: new ObjectId().toHexString(),
    blobId: new ObjectId().toHexString(),
    wrappedKey: '',
    noncePrefix: '',
  };
  await stack.mongo.db.collection<AppDoc>('apps').insertOne(app);
  await stack.mongo.db.collection<ApkDoc>('apks').insertOne(apk);
  return { appId: app._id.toHexString(), package: pkg, md5 };
}

export interface FormReport {
  package: string;
  api_key: string;
  hash: string;
  deviceId: string;
  st: string[];
  lc?: string[];
  userInfo?: Array<[string, string]>;
  screen?: string;
  handled?: boolean;
}

/** A stack trace whose exception class and line numbers the caller chooses. */
export function stackTrace(name: string, line = 42): string[] {
  return [
    `java.lang.IllegalStateException: ${name}`,
    `\tat dev.apkrelay.sample.MainActivity.onClick(MainActivity.java:${line})`,
    `\tat android.view.View.performClick(View.java:${7448 + line})`,
    'Caused by: java.lang.NullPointerException: boom',
    `\tat dev.apkrelay.sample.Repo.load(Repo.java:${line * 2})`,
    '\t... 12 more',
  ];
}

/** `application/x-www-form-urlencoded` as the device library builds it, parameters shuffled. */
export function encodeForm(report: FormReport): string {
  const params: Array<[string, string]> = [
    ['deviceId', report.deviceId],
    ...report.st.map((l): [string, string] => ['st[]', l]),
    ['hash', report.hash],
    ...(report.lc ?? []).map((l): [string, string] => ['lc[]', l]),
    ['api_key', report.api_key],
    ...(report.userInfo ?? []).flatMap(([k, v], i): Array<[string, string]> => [
      [`userInfo${i}[]`, k],
      [`userInfo${i}[]`, v],
    ]),
    ['package', report.package],
    ['handled', String(report.handled ?? false)],
  ];
  if (report.screen !== undefined) params.push(['screen', report.screen]);
  return params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

export function postForm(baseUrl: string, ca: string, body: string): Promise<Reply> {
  return request(`${baseUrl}/exception`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    body,
    ca,
  });
}

/**
 * Waits until `count()` reaches `expected` (the worker stores asynchronously), then returns it;
 * throws when it has not by the deadline, so a test waiting on it cannot pass by timing out.
 */
export async function eventually(count: () => Promise<number>, expected: number): Promise<number> {
  return eventuallyValue(`a count of ${expected}`, count, (value) => value >= expected);
}

/** Waits until the exception queue has nothing waiting, active or delayed. */
export async function drained(stack: TestStack): Promise<void> {
  await withExceptionQueue(stack, (queue) =>
    eventuallyValue(
      'the exception queue to drain',
      () => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized'),
      (counts) => Object.values(counts).every((c) => c === 0),
    ),
  );
}

/** The exception queue's job counts, with the reasons of up to 5 failed jobs (for diagnostics). */
export async function exceptionQueueState(
  stack: TestStack,
): Promise<{ counts: Record<string, number>; failedReasons: string[] }> {
  return withExceptionQueue(stack, async (queue) => ({
    counts: await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed'),
    failedReasons: (await queue.getFailed(0, 4)).map((j) => j.failedReason),
  }));
}

async function withExceptionQueue<T>(stack: TestStack, use: (q: Queue) => Promise<T>): Promise<T> {
  const redis = createWorkerRedis(stack.redisUrl, 'test:exception-queue');
  const queue = new Queue('exception-ingest', {
    connection: redis,
    prefix: bullPrefix(redis, stack.prefix),
  });
  try {
    return await use(queue);
  } finally {
    await queue.close();
    await closeRedis(redis);
  }
}

/**
 * The exact 24 h limit after 40 distinct reports of a free-plan app (5 installations: 10 a day)
 * labelled `label`: every reply 200, exactly 10 taken and 30 refused with PushLink's text, and,
 * once the queue has drained, exactly 10 reports of `accountId` stored.
 */
export async function expectTenOfForty(
  stack: TestStack,
  accountId: string,
  label: string,
  replies: ReadonlyArray<{ readonly status: number; readonly text: string }>,
): Promise<void> {
  expect(replies.map((r) => r.status)).toEqual(Array<number>(40).fill(200));
  const texts = replies.map((r) => r.text);
  expect(texts.filter((t) => t === 'Exception sent.')).toHaveLength(10);
  const refused = `Exception sent but rejected: The application ${label} has exceeded the 24H sending limit.`;
  expect(texts.filter((t) => t === refused)).toHaveLength(30);
  await drained(stack);
  expect(await stack.mongo.db.collection('exceptions').countDocuments({ accountId })).toBe(10);
}
