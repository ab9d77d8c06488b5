/**
 * When an admitted report surely was not enqueued (the producer refused before sending), its slot
 * is given back and the caller gets DEPENDENCY_UNAVAILABLE (a 503 the device retries): the device
 * keeps the report, and the retry is admitted. When the enqueue failed ambiguously (a deadline:
 * the job may have landed), the slot is kept, so the resend is recognised as a resend under the
 * same job id and at most one job exists. Real Redis window and Mongo; only the queue fails.
 */
import { createAccountsService } from '../../../shared/accounts/service';
import { takeReport, type IntakeDeps } from '../../../api/exceptions/intake';
import { cardInstallationLookup } from '../../../shared/devices/cards';
import { liveState } from '../../../shared/devices/live-state';
import { createKeyRing } from '../../../shared/crypto/keys';
import { AppError } from '../../../shared/errors';
import { validateReport } from '../../../shared/exceptions/report';
import { redisSlidingWindow } from '../../../shared/exceptions/sliding-window';
import { redisKeys } from '../../../shared/redis-keys';
import {
  closeRedis,
  createProducerRedis,
  RedisUnavailableError,
  redisReady,
} from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { track } from '../../helpers/resources';
import { startStack, type TestStack } from '../../helpers/stack';
import { testLogger } from '../../helpers/services';
import { seedApp, stackTrace } from './fixtures';

let stack: TestStack;
let redis: ReturnType<typeof createProducerRedis>;
let closeOwnRedis: () => Promise<void>;
beforeAll(async () => {
  stack = await startStack({ workers: false });
  redis = createProducerRedis(stack.redisUrl, 'test:enqueue-failure');
  closeOwnRedis = track('redis enqueue-failure', () => closeRedis(redis));
  await redisReady(redis, 5_000);
});
afterAll(async () => {
  await closeOwnRedis();
  await stack.close();
});

interface Setup {
  readonly deps: IntakeDeps;
  readonly apiKey: string;
  readonly appId: string;
  readonly report: ReturnType<typeof validateReport>;
}

/** One account (2 reports per 24 h), its app, one registered device, intake deps on `add`. */
async function setUp(add: IntakeDeps['queue']['add'], tag: string): Promise<Setup> {
  const account = await newAccount(stack, 1);
  const app = await seedApp(stack, account.id);
  await registerDevices({ baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app }, [
    'd1',
  ]);
  const keys = redisKeys(stack.prefix);
  const deps: IntakeDeps = {
    db: stack.mongo.db,
    accounts: createAccountsService(stack.mongo.db, createKeyRing(stack.masterKey)),
    queue: { add },
    window: redisSlidingWindow(redis),
    windowKey: keys.exceptionWindow,
    installations: cardInstallationLookup({
      db: stack.mongo.db,
      live: liveState(redis, stack.prefix),
    }),
    now: () => new Date('2026-04-01T00:00:00Z'),
    log: testLogger(),
  };
  const report = validateReport({
    package: app.package,
    hash: app.md5,
    deviceId: 'd1',
    stack: stackTrace(tag),
    log: [],
    metadata: [],
    extra: [],
  });
  return { deps, apiKey: account.apiKey, appId: app.appId, report };
}

test('a failed enqueue releases the slot and answers DEPENDENCY_UNAVAILABLE; the retry is admitted', async () => {
  const added: string[] = [];
  let queueDown = true;
  const add = ((_name: string, _data: unknown, opts?: { jobId?: string }) => {
    if (queueDown) {
      // What the API's producer connection rejects with when Redis is away: never sent.
      return Promise.reject(
        new RedisUnavailableError(
          new Error("Stream isn't writeable and enableOfflineQueue options is false"),
          false,
        ),
      );
    }
    added.push(opts?.jobId ?? '');
    return Promise.resolve({});
  }) as never;
  const { deps, apiKey, appId, report } = await setUp(add, 'enqueue');
  const window = redisKeys(stack.prefix).exceptionWindow(appId);

  const failure = await takeReport(deps, apiKey, report).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(AppError);
  expect((failure as AppError).code).toBe('DEPENDENCY_UNAVAILABLE');
  expect(await redis.zcard(window)).toBe(0);

  queueDown = false;
  const verdict = await takeReport(deps, apiKey, report);
  expect(verdict).toMatchObject({ status: 'REGISTERED', resent: false, budget: { remaining: 1 } });
  expect(added).toHaveLength(1);
  expect(await redis.zcard(window)).toBe(1);
});

test('an enqueue that timed out after adding keeps the slot; the resend is the same job', async () => {
  // A queue whose add stores the job and then fails like the producer's deadline does.
  const jobs = new Set<string>();
  let adds = 0;
  const add = ((_name: string, _data: unknown, opts?: { jobId?: string }) => {
    adds += 1;
    jobs.add(opts?.jobId ?? '');
    if (adds === 1) {
      return Promise.reject(
        new AppError('DEPENDENCY_UNAVAILABLE', {
          message: 'Redis did not answer adding to exception-ingest in time',
        }),
      );
    }
    return Promise.resolve({});
  }) as never;
  const { deps, apiKey, appId, report } = await setUp(add, 'enqueue-timeout');
  const window = redisKeys(stack.prefix).exceptionWindow(appId);

  const failure = await takeReport(deps, apiKey, report).catch((e: unknown) => e);
  expect((failure as AppError).code).toBe('DEPENDENCY_UNAVAILABLE');
  expect(await redis.zcard(window)).toBe(1);

  const verdict = await takeReport(deps, apiKey, report);
  expect(verdict).toMatchObject({ status: 'REGISTERED', resent: true, budget: { remaining: 1 } });
  expect(adds).toBe(2);
  expect(jobs.size).toBe(1);
  expect(await redis.zcard(window)).toBe(1);
});
