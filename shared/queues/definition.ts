/**
 * What a queue is, shared by producers (API) and consumers (workers): its name, the payload
 * contract (validated when read back from Redis, since old jobs outlive code), the job-id builder
 * used for de-duplication and its retry policy.
 */
import type { JobsOptions } from 'bullmq';
import { PayloadInvalid } from '../errors';

export interface QueueDefinition<Payload, Result, Name extends string = string> {
  readonly name: Name;
  /** Throws when `data` is not a valid payload (a job written by another version of the code). */
  parse(data: unknown): Payload;
  readonly jobOptions: JobsOptions;
  /** A stable id makes re-adding the same work a no-op (BullMQ ignores duplicate job ids). */
  jobId?(payload: Payload): string;
  /** Parallel jobs per worker process. */
  readonly concurrency: number;
  /**
   * The whole job's time budget: an attempt still running after it fails with
   * JOB_DEADLINE_EXCEEDED and is retried like any failed attempt; an active job older than it is
   * overdue (logged, counted in `apkrelay_jobs_overdue`, noted in its log on the board).
   */
  readonly budgetMs: number;
  /**
   * The shortest lock a worker holds on this queue's jobs (JOB_LOCK_MS when longer): a job whose
   * processor blocks the event loop longer than the lock (a patch generation) cannot renew it, so
   * it would look crashed while it runs. A crashed worker's job is taken back only after it.
   */
  readonly lockMs?: number;
  /**
   * A closing worker aborts the signal of this queue's active jobs at once instead of waiting for
   * them (workers/runtime.ts): for work that would hold a shutdown for minutes (a patch
   * generation, whose thread is then terminated). The attempt fails and is retried.
   */
  readonly abortOnClose?: boolean;
  /** Type-level carrier of the result; never read. */
  readonly __result?: Result;
}

export type PayloadOf<Q> = Q extends QueueDefinition<infer P, unknown, string> ? P : never;
export type ResultOf<Q> = Q extends QueueDefinition<unknown, infer R, string> ? R : never;

export function defineQueue<Payload, Result, Name extends string = string>(
  definition: QueueDefinition<Payload, Result, Name>,
): QueueDefinition<Payload, Result, Name> {
  return Object.freeze(definition);
}

/** Small helper for payload validators: a plain object. */
export function asRecord(data: unknown, queue: string): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new PayloadInvalid(queue, 'payload must be an object');
  }
  return data as Record<string, unknown>;
}
