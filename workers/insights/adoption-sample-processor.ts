/**
 * Processor of `adoption-sample`: stores the current hour's adoption point of every app.
 * Idempotent: a point already stored for the hour is kept (shared/adoption/samples.ts).
 */
import type { Db } from 'mongodb';
import { sampleAdoption } from '../../shared/adoption/samples';
import type { LiveState } from '../../shared/devices/store';
import type {
  AdoptionSamplePayload,
  AdoptionSampleResult,
} from '../../shared/queues/adoption-sample';
import type { Processor } from '../processor';
import { catalogCollections } from '../../shared/catalog/collections';

export interface AdoptionSampleDeps {
  readonly db: Db;
  readonly live: LiveState;
  readonly now: () => Date;
}

export function adoptionSampleProcessor(
  deps: AdoptionSampleDeps,
): Processor<AdoptionSamplePayload, AdoptionSampleResult> {
  return async (_payload, ctx) => {
    const now = deps.now();
    let apps = 0;
    let written = 0;
    for await (const app of catalogCollections(deps.db).apps.find({})) {
      if (ctx.signal.aborted) break;
      apps += 1;
      if (await sampleAdoption(deps, app, now)) written += 1;
    }
    ctx.log.info({ apps, written }, 'adoption sampled');
    return { apps, written };
  };
}
