import type { Logger } from '../shared/log';

/** What a processor gets besides its payload. */
export interface JobContext {
  readonly jobId: string;
  /** 1 for the first run. */
  readonly attempt: number;
  /** After a failure of attempt `maxAttempts`, BullMQ gives up on the job. */
  readonly maxAttempts: number;
  readonly log: Logger;
  /**
   * Aborted when the job's budget is spent, and when the worker is closing if its queue says
   * `abortOnClose` (shared/queues/definition.ts); long work should stop at the next safe point.
   */
  readonly signal: AbortSignal;
  /**
   * Puts the job back to run again in `delayMs`, without counting an attempt (a resource it needs
   * is busy); the processor returns what this throws.
   */
  defer(delayMs: number): Promise<never>;
  /** Stores what the job is doing as its progress (readers see it while the job lives). */
  progress(data: object): Promise<void>;
}

/** A processor is a plain function; the BullMQ Worker around it is a thin shell. */
export type Processor<Payload, Result> = (payload: Payload, ctx: JobContext) => Promise<Result>;
