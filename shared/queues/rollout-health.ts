/**
 * Queue `rollout-health`: the rollout health gate's periodic evaluation (shared/rollouts/
 * evaluate.ts). Scheduled by a BullMQ job scheduler every ROLLOUT_EVALUATION_SECONDS, so it runs
 * once per period however many workers run; never in API processes.
 */
import { MINUTE_MS } from './budget';
import { asRecord, defineQueue } from './definition';
import { PayloadInvalid } from '../errors';

export interface RolloutHealthPayload {
  readonly task: 'evaluate';
}

export interface RolloutHealthResult {
  readonly evaluated: number;
  readonly halted: number;
  readonly advanced: number;
}

export const rolloutHealthQueue = defineQueue<
  RolloutHealthPayload,
  RolloutHealthResult,
  'rollout-health'
>({
  name: 'rollout-health',
  concurrency: 1,
  // Whole-job budget (workers/runtime.ts): one evaluation of every running rollout.
  budgetMs: 10 * MINUTE_MS,
  parse(data) {
    const p = asRecord(data, 'rollout-health');
    if (p.task !== 'evaluate')
      throw new PayloadInvalid('rollout-health', `unknown task ${String(p.task)}`);
    return { task: 'evaluate' };
  },
  jobOptions: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  },
});

export const ROLLOUT_HEALTH_SCHEDULER_ID = 'rollout-health';
