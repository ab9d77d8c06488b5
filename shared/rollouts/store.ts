/**
 * The rollouts collection: one document per app, read by `_id` and account, changed by conditional
 * single-document updates on `revision` (a concurrent change makes the loser retry or fail with
 * ROLLOUT_STATE_CONFLICT, never a lost update). The move on from a revision is claimed first
 * (shared/storage/claims.ts): on the default store a conditional update alone lets both racers
 * win, the last write undoing the first. No transactions, no TTL, no `$slice`.
 */
import type { Db, ObjectId } from 'mongodb';
import { AppError } from '../errors';
import { underClaim } from '../storage/claims';
import type { HealthReport } from './health';
import { percentOf, transition, type RolloutAction, type RolloutState } from './rollout';
import { HISTORY_KEPT, type HealthWindow, type HistoryEntry, type RolloutDoc } from './types';
import { rolloutsCollections } from './collections';

export function findRollout(
  db: Db,
  app: { _id: ObjectId; accountId: string },
): Promise<RolloutDoc | null> {
  return rolloutsCollections(db).rollouts.findOne({ _id: app._id, accountId: app.accountId });
}

/** Every rollout of the account (one per app that had one): the apps list reads them at once. */
export function rolloutsOfAccount(db: Db, accountId: string): Promise<RolloutDoc[]> {
  return rolloutsCollections(db).rollouts.find({ accountId }).toArray();
}

export function isActive(r: { state: RolloutState } | null): boolean {
  return r !== null && (r.state === 'running' || r.state === 'paused');
}

export function freshWindow(now: Date, newBase: number, oldBase: number): HealthWindow {
  return {
    since: now,
    lastEvaluatedAt: null,
    newHours: 0,
    oldHours: 0,
    newBase,
    oldBase,
    last: null,
  };
}

function entry(
  before: RolloutDoc | null,
  after: RolloutDoc,
  action: string,
  by: HistoryEntry['by'],
  health: HealthReport | null,
  now: Date,
): HistoryEntry {
  return {
    at: now,
    action,
    by,
    from: before?.state ?? null,
    to: after.state,
    percent: percentOf(after),
    health,
  };
}

export function withHistory(doc: RolloutDoc, e: HistoryEntry): HistoryEntry[] {
  return [...doc.history, e].slice(-HISTORY_KEPT);
}

/** Writes `next` in place of `prev` (or first, when `prev` is null); false when it lost a race. */
async function swap(db: Db, prev: RolloutDoc | null, next: RolloutDoc): Promise<boolean> {
  const col = rolloutsCollections(db).rollouts;
  if (!prev) {
    try {
      await col.insertOne(next);
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }
  const { _id, ...rest } = next;
  const now = new Date();
  const key = `rollout:${_id.toHexString()}:${prev.revision}`;
  const until = new Date(now.getTime() + REVISION_CLAIM_MS);
  const replace = async () =>
    (await col.replaceOne({ _id, revision: prev.revision }, rest)).modifiedCount === 1;
  return underClaim(db, key, now, until, replace, false);
}

/** How long a revision's move stays claimed: past any racer still holding that revision. */
const REVISION_CLAIM_MS = 24 * 3_600_000;

const lostRace = () =>
  new AppError('ROLLOUT_STATE_CONFLICT', {
    message: 'the rollout changed meanwhile; read it again and retry',
  });

/** Writes a new rollout in place of a finished one (or none). ROLLOUT_ACTIVE if one runs. */
export async function insertRollout(
  db: Db,
  doc: Omit<RolloutDoc, 'revision' | 'history'>,
): Promise<RolloutDoc> {
  const prev = await findRollout(db, { _id: doc._id, accountId: doc.accountId });
  if (isActive(prev)) throw new AppError('ROLLOUT_ACTIVE');
  const next: RolloutDoc = { ...doc, revision: (prev?.revision ?? 0) + 1, history: [] };
  next.history = [entry(null, next, 'start', 'owner', null, doc.startedAt)];
  if (!(await swap(db, prev, next))) throw lostRace();
  return next;
}

/**
 * Applies `action` to the rollout as read (`prev`): the state machine's result, a new health
 * window when the stage changes, and the history entry. Throws ROLLOUT_STATE_CONFLICT when the
 * action does not apply or the document changed since it was read.
 */
export async function applyAction(
  db: Db,
  prev: RolloutDoc,
  action: RolloutAction | 'superseded',
  by: HistoryEntry['by'],
  health: HealthReport | null,
  now: Date,
): Promise<RolloutDoc> {
  const core =
    action === 'superseded' ? { ...prev, state: 'halted' as const } : transition(prev, action);
  const stageMoved = core.stageIndex !== prev.stageIndex;
  const next: RolloutDoc = {
    ...prev,
    state: core.state,
    stageIndex: core.stageIndex,
    revision: prev.revision + 1,
    updatedAt: now,
    stageStartedAt: stageMoved ? now : prev.stageStartedAt,
    // A new stage is judged on its own window, from the counters where the last one ended.
    health: stageMoved
      ? freshWindow(
          now,
          prev.health.newBase + (prev.health.last?.newCount ?? 0),
          prev.health.oldBase + (prev.health.last?.oldCount ?? 0),
        )
      : prev.health,
  };
  next.history = withHistory(prev, entry(prev, next, action, by, health, now));
  if (!(await swap(db, prev, next))) throw lostRace();
  return next;
}

/** Stores a health evaluation's window (no decision); false when the rollout changed meanwhile. */
export async function saveHealth(db: Db, prev: RolloutDoc, health: HealthWindow): Promise<boolean> {
  return swap(db, prev, { ...prev, health, revision: prev.revision + 1 });
}
