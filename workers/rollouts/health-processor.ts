/** Processor of `rollout-health`: one evaluation of every running rollout. */
import type { EvaluationDeps } from '../../shared/rollouts/evaluate';
import { evaluateRollouts } from '../../shared/rollouts/evaluate';
import type { RolloutHealthPayload, RolloutHealthResult } from '../../shared/queues/rollout-health';
import type { Processor } from '../processor';

export function rolloutHealthProcessor(
  deps: EvaluationDeps & { readonly now: () => Date },
): Processor<RolloutHealthPayload, RolloutHealthResult> {
  return async (_payload, ctx) => {
    const results = await evaluateRollouts(deps, deps.now());
    for (const r of results) {
      if (r.decision)
        ctx.log.info(
          { appId: r.appId, decision: r.decision, health: r.report },
          'rollout decision',
        );
    }
    return {
      evaluated: results.length,
      halted: results.filter((r) => r.decision === 'halt').length,
      advanced: results.filter((r) => r.decision === 'advance').length,
    };
  };
}
