/**
 * Applies an inflated ARDELTA2 patch (format2.ts) as a stream: reads and checks its plan, builds
 * dfOld into the caller's scratch file (df-old.ts), applies ARDELTA1's records over it
 * (apply-patch.ts) and pipes dfNew through the recompressor (recompressor.ts) into `target`,
 * hashed as it is written. Neither file is held in memory. Any breach is a `DeltaPatchError`
 * with the contract's word; the scratch file and what was written are the caller's to delete.
 */
import { applyRecords, type ApplyTarget, type OldFile } from './apply-patch';
import { ByteStream } from './byte-stream';
import { buildDfOld, type Scratch } from './df-old';
import { readPlan } from './format2';
import { Recompressor } from './recompressor';

/** Applies `inflated` to `old`; returns the final file's size. */
export async function applyPatch2(
  inflated: AsyncIterable<Uint8Array>,
  old: OldFile,
  scratch: Scratch,
  target: ApplyTarget,
): Promise<number> {
  const patch = new ByteStream(inflated);
  try {
    const plan = await readPlan(patch, old.size);
    const dfOld = await buildDfOld(old, plan.oldRanges, scratch);
    const out = new Recompressor(plan.newRanges, plan.newSize, target);
    await applyRecords(patch, dfOld, out, plan.dfNewSize);
    return await out.end();
  } finally {
    await patch.close();
  }
}
