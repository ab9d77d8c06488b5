/**
 * The queue registry: every queue apkrelay has. Workers refuse to start unless each one has a
 * processor (`workers/processors.ts`), and the API creates its producers from this list.
 */
import { housekeepingQueue } from './housekeeping';

export const QUEUES = [housekeepingQueue] as const;

export type RegisteredQueue = (typeof QUEUES)[number];
export type QueueName = RegisteredQueue['name'];
