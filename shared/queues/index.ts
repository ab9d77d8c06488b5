/**
 * The queue registry: every queue apkrelay has. Workers refuse to start unless each one has a
 * processor (`workers/queue-processors.ts`), and the API creates its producers from this list.
 */
import { adoptionSampleQueue } from './adoption-sample';
import { apkIngestQueue } from './apk-ingest';
import { backupQueue } from './backup';
import { deltaGenerateQueue } from './delta-generate';
import { exceptionIngestQueue } from './exception-ingest';
import { housekeepingQueue } from './housekeeping';
import { rolloutHealthQueue } from './rollout-health';
import { webhookDeliveryQueue } from './webhook-delivery';

export const QUEUES = [
  apkIngestQueue,
  housekeepingQueue,
  exceptionIngestQueue,
  backupQueue,
  rolloutHealthQueue,
  adoptionSampleQueue,
  webhookDeliveryQueue,
  deltaGenerateQueue,
] as const;

export type RegisteredQueue = (typeof QUEUES)[number];
export type QueueName = RegisteredQueue['name'];
