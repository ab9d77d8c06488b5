/**
 * Which reports of a batch a group has not counted yet, and its `pending` list after counting
 * them. Pure.
 *
 * A report is counted in its group before its document is inserted, and the database may have no
 * transactions to join the two writes (groups.ts); so the group document itself records,
 * in the same single-document write as the count, the ids of the reports it counted (`pending`). A
 * report is counted if and only if its id is in `pending` or its stored marker (set in Redis once
 * the report document is inserted) exists. An id leaves `pending` only once its marker is seen, so
 * a retried or concurrent run of the same job (all group writes run under the group's lock) finds
 * the one or the other and counts nothing. Ids whose report is never stored (a job that failed for
 * good) stay until no job for them can exist any more: `keepMs` after they were counted, longer
 * than failed jobs are kept to be retried. `pending` thus holds the reports in flight, not a
 * history.
 */
import type { PendingCount } from '../../shared/exceptions/collections';

export interface CountPlan<E> {
  /** Entries to count now (one per report id), in batch order. */
  readonly fresh: E[];
  /** The group's `pending` list once they are counted. */
  readonly pending: PendingCount[];
  /** False when the group document needs no write at all. */
  readonly changed: boolean;
}

/**
 * `stored`: the report ids (of `pending` and of the batch) whose stored marker exists.
 */
export function planCount<E extends { readonly reportId: string }>(
  batch: readonly E[],
  pending: readonly PendingCount[],
  stored: ReadonlySet<string>,
  now: Date,
  keepMs: number,
): CountPlan<E> {
  const counted = new Set(pending.map((p) => p.id));
  const fresh: E[] = [];
  for (const entry of batch) {
    if (counted.has(entry.reportId) || stored.has(entry.reportId)) continue;
    counted.add(entry.reportId);
    fresh.push(entry);
  }
  const kept = pending.filter((p) => !stored.has(p.id) && now.getTime() - p.at.getTime() < keepMs);
  return {
    fresh,
    pending: [...kept, ...fresh.map((e) => ({ id: e.reportId, at: now }))],
    changed: fresh.length > 0 || kept.length !== pending.length,
  };
}

/** The report ids whose stored marker decides `planCount`. */
export function idsToCheck(
  batch: readonly { readonly reportId: string }[],
  pending: readonly PendingCount[],
): string[] {
  return [...new Set([...pending.map((p) => p.id), ...batch.map((e) => e.reportId)])];
}
