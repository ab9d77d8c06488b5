import type { Queue } from 'bullmq';
import type { DeliverySink } from '../webhooks/deliveries';
import { webhookDeliveryQueue } from './webhook-delivery';

/** Webhook deliveries go out through the `webhook-delivery` queue (ids only in the job). */
export function queueDeliverySink(queue: Queue): DeliverySink {
  return {
    async enqueue(deliveryId, redelivery) {
      const payload = webhookDeliveryQueue.parse({ deliveryId, redelivery });
      await queue.add('deliver', payload, {
        ...webhookDeliveryQueue.jobOptions,
        jobId: webhookDeliveryQueue.jobId!(payload),
      });
    },
  };
}
