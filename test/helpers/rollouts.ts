/**
 * Rollout tests' tools: unhandled exceptions sent as devices send them, and one evaluation of the
 * health gate run by the stack's workers (tests start no schedulers: the test says when).
 */
import { Queue } from 'bullmq';
import { closeRedis, createWorkerRedis } from '../../shared/storage/redis';
import { eventually } from './eventually';
import { request } from './http';
import type { TestStack } from './stack';

/** `n` distinct unhandled exceptions from `deviceId` running `md5` (202, or 429 over the limit). */
export async function sendCrashes(
  stack: TestStack,
  apiKey: string,
  pkg: string,
  device: { readonly deviceId: string; readonly md5: string },
  n: number,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await request(`${stack.urls.admin}/api/v2/exceptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      json: {
        package: pkg,
        hash: device.md5,
        deviceId: device.deviceId,
        stack: [
          `java.lang.IllegalStateException: crash ${i} on ${device.deviceId}`,
          '\tat a.B.c(B.java:1)',
        ],
      },
      ca: stack.ca,
    });
    if (r.status !== 202 && r.status !== 429) {
      throw new Error(`exception report refused: ${r.status} ${r.text}`);
    }
  }
}

/** Adds one `rollout-health` job and waits for the stack's workers to finish it. */
export async function evaluateRolloutsOnce(stack: TestStack): Promise<void> {
  const connection = createWorkerRedis(stack.redisUrl);
  const queue = new Queue('rollout-health', { connection, prefix: stack.prefix });
  try {
    const job = await queue.add('evaluate', { task: 'evaluate' });
    await eventually('the evaluation job to finish', async () =>
      (await queue.getJob(job.id!))?.finishedOn ? true : undefined,
    );
  } finally {
    await queue.close();
    await closeRedis(connection);
  }
}
