/**
 * Adoption samples: one document per (app, hour), written by the `adoption-sample` job
 * (shared/queues/adoption-sample.ts) and never updated: its `_id` is derived from the app and the
 * hour, so a second sampler of the same hour (another worker, a retry) is refused as a duplicate.
 * Reading a series adds a point computed now, so the latest point is what installations run now.
 */
import { createHash } from 'node:crypto';
import { MongoServerError, ObjectId } from 'mongodb';
import { apksOf } from '../catalog/queries';
import type { AppDoc } from '../catalog/types';
import { versionsSeenSince, type StoreDeps } from '../devices/store';
import { adoptionPoint, IN_USE_WINDOW_MS, sampleTime, type AdoptionPoint } from './points';
import { adoptionCollections } from './collections';

function sampleId(app: AppDoc, at: Date): ObjectId {
  const digest = createHash('sha256')
    .update(`${app.accountId}\n${app.package}\n${at.toISOString()}`)
    .digest();
  return new ObjectId(digest.subarray(0, 12));
}

/** The app's adoption at `now`: installations seen in the window before it, by version. */
export async function adoptionNow(deps: StoreDeps, app: AppDoc, now: Date): Promise<AdoptionPoint> {
  const since = new Date(now.getTime() - IN_USE_WINDOW_MS);
  const [counts, apks] = await Promise.all([
    versionsSeenSince(deps, { accountId: app.accountId, package: app.package }, since),
    apksOf(deps.db, app),
  ]);
  return adoptionPoint(now, counts, apks);
}

/** Stores the app's point of the hour of `now` (first write wins); true when written. */
export async function sampleAdoption(deps: StoreDeps, app: AppDoc, now: Date): Promise<boolean> {
  const at = sampleTime(now);
  const point = await adoptionNow(deps, app, now);
  try {
    await adoptionCollections(deps.db).samples.insertOne({
      _id: sampleId(app, at),
      accountId: app.accountId,
      package: app.package,
      at,
      total: point.total,
      versions: [...point.versions],
    });
    return true;
  } catch (err) {
    if (err instanceof MongoServerError && err.code === 11000) return false;
    throw err;
  }
}

/** Stored points since `since`, oldest first, then the point of `now`. */
export async function adoptionSeries(
  deps: StoreDeps,
  app: AppDoc,
  since: Date,
  now: Date,
): Promise<AdoptionPoint[]> {
  const [stored, latest] = await Promise.all([
    adoptionCollections(deps.db)
      .samples.find({ accountId: app.accountId, package: app.package, at: { $gte: since } })
      .sort({ at: 1 })
      .toArray(),
    adoptionNow(deps, app, now),
  ]);
  return [...stored.map((s) => ({ at: s.at, total: s.total, versions: s.versions })), latest];
}
