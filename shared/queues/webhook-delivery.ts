/**
 * Queue `webhook-delivery`: one job per delivery of a webhook event to one endpoint
 * (shared/webhooks/, docs/webhooks.md). The job carries ids only; the worker reads the body from
 * the delivery log and the endpoint's sealed secret from the database. A failed attempt (no
 * reply, or a status other than 2xx) is retried with exponential backoff: 1 s, 2 s, 4 s, ...,
 * 1,024 s: 12 attempts over about 34 minutes (2,047 s of waits). A redelivery by hand is a new job (its own id).
 */
import { MINUTE_MS } from './budget';
import { asRecord, defineQueue } from './definition';
import { PayloadInvalid } from '../errors';

export interface WebhookDeliveryPayload {
  readonly deliveryId: string;
  /** 0 for the first delivery, n for the n-th redelivery by hand. */
  readonly redelivery: number;
}

export interface WebhookDeliveryResult {
  readonly outcome: 'delivered' | 'skipped' | 'refused' | 'disabled';
  readonly statusCode: number | null;
}

export const webhookDeliveryQueue = defineQueue<
  WebhookDeliveryPayload,
  WebhookDeliveryResult,
  'webhook-delivery'
>({
  name: 'webhook-delivery',
  concurrency: 8,
  // Whole-job budget (workers/runtime.ts): one HTTP delivery under its own timeout.
  budgetMs: 2 * MINUTE_MS,
  parse(data) {
    const p = asRecord(data, 'webhook-delivery');
    if (typeof p.deliveryId !== 'string' || !/^[0-9a-f]{24}$/.test(p.deliveryId)) {
      throw new PayloadInvalid('webhook-delivery', 'deliveryId must be a delivery id');
    }
    const redelivery = p.redelivery ?? 0;
    if (typeof redelivery !== 'number' || !Number.isInteger(redelivery) || redelivery < 0) {
      throw new PayloadInvalid('webhook-delivery', 'redelivery must be a whole number');
    }
    return { deliveryId: p.deliveryId, redelivery };
  },
  jobId: (p) => `${p.deliveryId}-${p.redelivery}`,
  jobOptions: {
    attempts: 12,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { count: 1000 },
    removeOnFail: { count: 1000 },
  },
});
