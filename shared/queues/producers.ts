/**
 * Producer-side BullMQ queues of every registered queue, sharing one fail-fast connection.
 * BullMQ's Queue waits for its connection to become ready before any command, whatever the
 * connection's offline-queue setting, so a request would hang while Redis is down. The queues
 * handed out here refuse at once when the connection is not ready and bound every call with a
 * deadline: the caller gets DEPENDENCY_UNAVAILABLE (a retryable 503), never a hung request.
 */
import { Queue, type JobsOptions, type QueueOptions } from 'bullmq';
import { withDeadline as bounded } from '../deadline';
import { AppError } from '../errors';
import { bullPrefix, RedisUnavailableError, type Redis } from '../storage/redis';
import { confirmReplicated, REPLICA_WAIT_MS } from '../storage/redis-replicas';
import { QUEUES, type QueueName } from './index';
import { listenedConnection } from './listened-connection';

const CALL_DEADLINE_MS = 5_000;

/** `work` bounded by `ms`: DEPENDENCY_UNAVAILABLE (a retryable 503) when Redis does not answer. */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  const message = `Redis did not answer ${what} in time`;
  return bounded({ ms, what, code: 'DEPENDENCY_UNAVAILABLE', message }, () => work);
}

class FailFastQueue extends Queue {
  constructor(
    name: string,
    options: QueueOptions,
    private readonly redis: Redis,
    onError: (err: Error) => void,
  ) {
    super(name, options, listenedConnection(onError));
    this.on('error', onError);
  }

  private ready(what: string): void {
    if (this.redis.status !== 'ready') {
      const message = `Redis is unavailable (${what})`;
      // Nothing was sent: surelyNotSent (storage/redis.ts) reads this cause.
      throw new AppError('DEPENDENCY_UNAVAILABLE', {
        message,
        cause: RedisUnavailableError.unsent(message),
      });
    }
  }

  /**
   * Resolves once the job is stored, and on a cluster confirmed by a replica (redis-replicas.ts).
   * Only the add can fail the call: once it is done the job exists and will run, so the caller
   * must not treat it as refused (it would clean up what the job needs). A confirmation that
   * fails or is late leaves the job as durable as its master's append-only file.
   */
  override async add(name: string, data: unknown, opts?: JobsOptions): ReturnType<Queue['add']> {
    this.ready(`adding to ${this.name}`);
    const job = await withDeadline(
      super.add(name, data, opts),
      CALL_DEADLINE_MS,
      `adding to ${this.name}`,
    );
    await withDeadline(
      confirmReplicated(this.redis, this.qualifiedName),
      REPLICA_WAIT_MS + 1_000,
      'confirming a replica',
    ).catch(() => null);
    return job;
  }

  /** Bounded like add: asked after an ambiguous add, while Redis may be failing over. */
  override getJob(jobId: string): ReturnType<Queue['getJob']> {
    this.ready('reading a job');
    return withDeadline(super.getJob(jobId), CALL_DEADLINE_MS, 'reading a job');
  }

  override getWorkersCount(): Promise<number> {
    this.ready('counting workers');
    return withDeadline(super.getWorkersCount(), CALL_DEADLINE_MS, 'counting workers');
  }
}

export interface Producers {
  get(name: QueueName): Queue;
  /** True when every registered queue has at least one connected worker. */
  allHaveWorkers(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * `onError` hears every queue's errors, those of a connection BullMQ closed included: a queue
 * closed while Redis refuses still hears of its last failed connection attempt
 * (listened-connection.ts).
 */
export function createProducers(
  connection: Redis,
  prefix: string,
  onError: (err: Error) => void,
): Producers {
  const options = { connection, prefix: bullPrefix(connection, prefix) };
  const queues = new Map<string, Queue>(
    QUEUES.map((q) => [q.name, new FailFastQueue(q.name, options, connection, onError)]),
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
      // Closing waits for the connection too: bounded, so shutdown finishes while Redis is down.
      await withDeadline(
        Promise.all([...queues.values()].map((q) => q.close())),
        CALL_DEADLINE_MS,
        'closing queues',
      ).catch(() => undefined);
    },
  };
}
