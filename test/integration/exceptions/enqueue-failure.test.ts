/**
 * When an admitted report cannot be enqueued (Redis or the queue is down), its slot is given back
 * and the caller gets DEPENDENCY_UNAVAILABLE (a 503 the device retries): the device keeps the
 * report, and the retry is admitted. Real Redis window and Mongo; only the queue fails.
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

test('a failed enqueue releases the slot and answers DEPENDENCY_UNAVAILABLE; the retry is admitted', async () => {
  const account = await newAccount(stack, 1); // 2 per 24 h
  const app = await seedApp(stack, account.id);
  await registerDevices({ baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app }, [
    'd1',
  ]);
  const keys = redisKeys(stack.prefix);
  const added: string[] = [];
  let queueDown = true;
  const deps: IntakeDeps = {
    db: stack.mongo.db,
    accounts: createAccountsService(stack.mongo.db, createKeyRing(stack.masterKey)),
    queue: {
      add: ((_name: string, _data: unknown, opts?: { jobId?: string }) => {
        if (queueDown) {
          // What the API's producer connection rejects with when Redis is away.
          return Promise.reject(
            new RedisUnavailableError(
              new Error("Stream isn't writeable and enableOfflineQueue options is false"),
            ),
          );
        }
        added.push(opts?.jobId ?? '');
        return Promise.resolve({});
      }) as never,
    },
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
    stack: stackTrace('enqueue'),
    log: [],
    metadata: [],
    extra: [],
  });
  const failure = await takeReport(deps, account.apiKey, report).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(AppError);
  expect((failure as AppError).code).toBe('DEPENDENCY_UNAVAILABLE');
  expect(await redis.zcard(keys.exceptionWindow(app.appId))).toBe(0);

  queueDown = false;
  const verdict = await takeReport(deps, account.apiKey, report);
  expect(verdict).toMatchObject({ status: 'REGISTERED', resent: false, budget: { remaining: 1 } });
  expect(added).toHaveLength(1);
  expect(await redis.zcard(keys.exceptionWindow(app.appId))).toBe(1);
});
