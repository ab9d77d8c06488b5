/**
 * Processor of the `housekeeping` queue. Idempotent: deleting an already deleted staging file is
 * a no-op, and only files older than the threshold (never an upload in progress) are touched.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { HousekeepingPayload, HousekeepingResult } from '../../shared/queues/housekeeping';
import type { Processor } from '../processor';

export interface HousekeepingDeps {
  readonly stagingDir: string;
  readonly now: () => number;
}

export function housekeepingProcessor(
  deps: HousekeepingDeps,
): Processor<HousekeepingPayload, HousekeepingResult> {
  return async (payload, ctx) => {
    let names: string[];
    try {
      names = await readdir(deps.stagingDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { removed: 0 };
      throw err;
    }
    const cutoff = deps.now() - payload.olderThanMs;
    let removed = 0;
    for (const name of names) {
      if (ctx.signal.aborted) break;
      const file = path.join(deps.stagingDir, name);
      const info = await stat(file).catch(() => undefined);
      if (info?.isFile() && info.mtimeMs < cutoff) {
        await rm(file, { force: true });
        removed += 1;
      }
    }
    if (removed > 0) ctx.log.info({ removed }, 'purged abandoned staging files');
    return { removed };
  };
}
