/**
 * Queues that carry acknowledged work (an upload answered 200/202, a report answered REGISTERED)
 * must outlast a realistic outage of MongoDB or the disk: their retries span at least half an
 * hour. (BullMQ's exponential backoff waits delay * 2^(n-1) before attempt n + 1.)
 */
import type { JobsOptions } from 'bullmq';
import { apkIngestQueue } from '../../../../shared/queues/apk-ingest';
import { exceptionIngestQueue } from '../../../../shared/queues/exception-ingest';
import { webhookDeliveryQueue } from '../../../../shared/queues/webhook-delivery';

function retrySpanMs(options: JobsOptions): number {
  const attempts = options.attempts ?? 1;
  const backoff = options.backoff;
  if (typeof backoff !== 'object' || backoff.type !== 'exponential') return 0;
  let total = 0;
  for (let n = 1; n < attempts; n++) total += (backoff.delay ?? 0) * 2 ** (n - 1);
  return total;
}

test.each([apkIngestQueue, exceptionIngestQueue])(
  '$name retries an outage for at least 30 minutes',
  (queue) => {
    expect(retrySpanMs(queue.jobOptions)).toBeGreaterThanOrEqual(30 * 60_000);
  },
);

test('webhook-delivery waits 1 s, 2 s, ... 1,024 s between its 12 attempts: 2,047 s (docs/webhooks.md)', () => {
  expect(webhookDeliveryQueue.jobOptions.attempts).toBe(12);
  expect(retrySpanMs(webhookDeliveryQueue.jobOptions)).toBe(2_047_000);
});
