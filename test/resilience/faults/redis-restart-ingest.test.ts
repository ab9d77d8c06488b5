/**
 * Fault: Redis restarts (SIGTERM, down 6 s), or crashes (SIGKILL, down 3 s), while uploads are in
 * flight, through the legacy synchronous endpoint and the asynchronous JSON one (scenario and
 * promises: ingest-under-fault.ts): acknowledged uploads complete once, the others get 503 +
 * Retry-After.
 */
import { startStack, type TestStack } from '../../helpers/stack';
import { ingestUnderFault } from './ingest-under-fault';
import { startPrivateServices, type PrivateServices } from './private-services';

let services: PrivateServices;
let stack: TestStack;

beforeAll(async () => {
  services = await startPrivateServices();
  stack = await startStack({ redisUrl: services.redisUrl, mongoUrl: services.mongoUrl });
});
afterAll(async () => {
  await stack?.close();
  await services?.close();
});

test('Redis restarted during ingest: acknowledged uploads complete once, the others get 503 + Retry-After', () =>
  ingestUnderFault(stack, {
    section: 'faults:redis-restart-ingest',
    stop: () => services.stopRedis(),
    start: () => services.startRedis(),
    downMs: 6_000,
  }));

test('Redis killed (SIGKILL) during ingest: acknowledged uploads complete once, the others get 503 + Retry-After', () =>
  ingestUnderFault(stack, {
    section: 'faults:redis-kill-ingest',
    stop: () => services.killRedis(),
    start: () => services.startRedis(),
    downMs: 3_000,
  }));
