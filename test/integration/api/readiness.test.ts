import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ workers: false });
});
afterAll(() => stack.close());

test('/readyz is 503 until a worker serves every queue, then 200', async () => {
  const before = await request(`${stack.urls.admin}/readyz`, { ca: stack.ca });
  expect(before.status).toBe(503);
  expect(before.headers['retry-after']).toBe('5');
  expect(before.json()).toMatchObject({ checks: { redis: true, mongo: true, workers: false } });

  const workers = await stack.startWorkers();
  const after = await request(`${stack.urls.admin}/readyz`, { ca: stack.ca });
  expect(after.status).toBe(200);

  await workers.close();
  const closed = await request(`${stack.urls.admin}/readyz`, { ca: stack.ca });
  expect(closed.status).toBe(503);
});
