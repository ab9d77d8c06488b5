/**
 * Processor of `delta-generate`: makes the missing patches of one app (shared/delta/
 * generate-for-app.ts). Idempotent: a pair tried before is skipped, a published patch is one
 * document inserted last, and a crashed try's blob is swept by the next try of its pair. The
 * patches are made on a thread (shared/delta/build-off-thread.ts), so this process's event loop
 * keeps serving the other queues meanwhile; the job's signal (the worker closing, the budget
 * spent) ends a generation under way at once, and the retry finishes the rest. The pairs it will
 * try are stored as the job's progress first, so `/download/delta` answers them "not ready yet"
 * while the job lives (shared/delta/pending.ts).
 */
import type { DeltaGeneratePayload, DeltaGenerateResult } from '../../shared/queues/delta-generate';
import { generateForApp } from '../../shared/delta/generate-for-app';
import type { GenerateDeltaDeps } from '../../shared/delta/generate-delta';
import type { Processor } from '../processor';

export function deltaGenerateProcessor(
  deps: GenerateDeltaDeps,
): Processor<DeltaGeneratePayload, DeltaGenerateResult> {
  return async (payload, ctx) => {
    const counts = await generateForApp(
      deps,
      payload.accountId,
      payload.appId,
      ctx.signal,
      (pairs) => ctx.progress({ deltaPairs: pairs }),
    );
    ctx.log.info({ appId: payload.appId, ...counts }, 'delta patches generated');
    return counts;
  };
}
