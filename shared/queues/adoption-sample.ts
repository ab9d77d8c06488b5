/**
 * Queue `adoption-sample`: every hour, each app's version adoption (shared/adoption/) is stored as
 * one point. Scheduled by a BullMQ job scheduler, so it runs once per period however many workers
 * run; a second run in the same hour writes nothing (the sample's id is derived from the hour).
 */
import { MINUTE_MS } from './budget';
import { SAMPLE_EVERY_MS } from '../adoption/points';
import { asRecord, defineQueue } from './definition';
import { PayloadInvalid } from '../errors';

export interface AdoptionSamplePayload {
  readonly task: 'sample-adoption';
}

export interface AdoptionSampleResult {
  readonly apps: number;
  readonly written: number;
}

export const adoptionSampleQueue = defineQueue<
  AdoptionSamplePayload,
  AdoptionSampleResult,
  'adoption-sample'
>({
  name: 'adoption-sample',
  concurrency: 1,
  // Whole-job budget (workers/runtime.ts): a scan of the installations of every app.
  budgetMs: 10 * MINUTE_MS,
  parse(data) {
    const p = asRecord(data, 'adoption-sample');
    if (p.task !== 'sample-adoption')
      throw new PayloadInvalid('adoption-sample', `unknown task ${String(p.task)}`);
    return { task: p.task };
  },
  jobOptions: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  },
});

export const ADOPTION_SCHEDULE = {
  id: 'adoption-sample-hourly',
  every: SAMPLE_EVERY_MS,
  payload: { task: 'sample-adoption' } as AdoptionSamplePayload,
} as const;
