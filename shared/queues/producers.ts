/** Producer-side BullMQ queues of every registered queue, sharing one fail-fast connection. */
import { Queue } from 'bullmq';
import type { Redis } from '../storage/redis';
import { QUEUES, type QueueName } from './index';

export interface Producers {
  get(name: QueueName): Queue;
  /** True when every registered queue has at least one connected worker. */
  allHaveWorkers(): Promise<boolean>;
  close(): Promise<void>;
}

export function createProducers(connection: Redis, prefix: string): Producers {
  const queues = new Map<string, Queue>(
    QUEUES.map((q) => [q.name, new Queue(q.name, { connection, prefix })]),
  );
  return {
    get(name) {
      const queue = queues.get(name);
      if (!queue) throw new Error(`unknown queue ${name}`);
      return queue;
    },
    async allHaveWorkers() {
      const counts = await Promise.all([...queues.values()].map((q) => q.getWorkersCount()));
      return counts.every((n) => n > 0);
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
