/**
 * One writer at a time for a document whose every writer takes its lock. On the default store
 * concurrent updates of one document can undo one another, whatever their filters (claims.ts):
 * a document written by several paths (an app's current APK, its version counter and its label)
 * is written under this lock. A lock is a claim that expires: a holder that died frees it after
 * LOCK_MS, and a waiter gives up after `waitMs` with STEP_DEADLINE_EXCEEDED (retried like any
 * store outage).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { deadlineError } from '../deadline';
import { claimOnce, dropExpiredClaim, releaseClaim } from './claims';

/** How long a lock holds without its holder (work under it takes milliseconds). */
const LOCK_MS = 30_000;
const WAIT_MS = 10_000;

export async function withDocLock<T>(
  db: Db,
  key: string,
  work: () => Promise<T>,
  waitMs = WAIT_MS,
): Promise<T> {
  const claim = `lock:${key}`;
  const holder = randomBytes(9).toString('base64url');
  const giveUpAt = Date.now() + waitMs;
  for (let attempt = 0; ; attempt += 1) {
    const at = new Date();
    if (await claimOnce(db, claim, at, new Date(at.getTime() + LOCK_MS), holder)) break;
    await dropExpiredClaim(db, claim, at);
    if (Date.now() >= giveUpAt) throw deadlineError({ ms: waitMs, what: `waiting for ${claim}` });
    // Short and jittered: holders keep it for milliseconds.
    await sleep(Math.min(2 ** attempt, 50) * (0.5 + Math.random()));
  }
  try {
    return await work();
  } finally {
    // A release that fails (the store went away) must not turn a done write into a failure:
    // the lock frees itself at its expiry.
    await releaseClaim(db, claim, holder).catch(() => undefined);
  }
}
