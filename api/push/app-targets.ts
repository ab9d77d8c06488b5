/**
 * The push hub's per-process cache of what its decisions read from the database for an app: the
 * app and its targets (current APK, rollout). Without it every stream that connects read the app
 * and its rollout, two database requests per connect; a fleet reconnecting at once queued them
 * behind its registrations (docs/benchmarks.md#registrations).
 *
 * An entry is kept per app together with the id of the app's latest version notice it was loaded
 * after. Every change of what an app's devices should run (current APK, rollout start, stage,
 * pause, halt, completion) bumps the app's version and appends a notice (shared/catalog/
 * current-apk.ts) after the change is written, and the hub reads the latest notice id before it
 * asks here: so an entry found under the same id was loaded after the latest change announced so
 * far, and a change not yet announced is sent to every open stream by its notice's own sync (which
 * reads under the new id, a miss). The TTL only bounds what a lost notice could leave stale.
 */
import { ObjectId, type Db } from 'mongodb';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import { loadTargets, type LoadedTargets } from '../../shared/rollouts/targets';
import { catalogCollections } from '../../shared/catalog/collections';
import { versionCodesOf } from '../../shared/catalog/queries';

export interface AppTargets {
  readonly app: AppDoc;
  readonly loaded: LoadedTargets;
  /**
   * The versionCode of each of the app's APKs by MD5 (no downgrade is offered: decide.ts). An APK
   * uploaded without a notice is missing until the next notice or the TTL: its installations are
   * then decided as an unknown MD5's, as before.
   */
  readonly versionCodes: ReadonlyMap<string, number>;
}

/** Reads the app (by `_id`), its targets and its APKs' versionCodes; null when the app is gone. */
export async function loadAppTargets(
  db: Db,
  appId: string,
  apkById: (id: string) => Promise<ApkDoc | null>,
): Promise<AppTargets | null> {
  const app = await catalogCollections(db).apps.findOne({ _id: new ObjectId(appId) });
  if (!app) return null;
  const [loaded, versionCodes] = await Promise.all([
    loadTargets(db, app, apkById),
    versionCodesOf(db, app),
  ]);
  return { app, loaded, versionCodes };
}

const TTL_MS = 10_000;
const MAX_APPS = 10_000;

interface Entry {
  readonly eventId: string;
  readonly until: number;
  readonly value: Promise<AppTargets | null>;
}

export class AppTargetsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly load: (appId: string) => Promise<AppTargets | null>,
    private readonly clock: () => number = () => performance.now(),
    private readonly ttlMs = TTL_MS,
  ) {}

  /**
   * The app's targets as loaded after notice `eventId` (read by the caller first); loaded now
   * when none is kept for that notice. A failed load or a missing app is not kept.
   */
  get(appId: string, eventId: string): Promise<AppTargets | null> {
    const now = this.clock();
    const hit = this.entries.get(appId);
    if (hit && hit.eventId === eventId && hit.until > now) return hit.value;
    const value = this.load(appId);
    this.entries.delete(appId);
    this.entries.set(appId, { eventId, until: now + this.ttlMs, value });
    if (this.entries.size > MAX_APPS) this.entries.delete(this.entries.keys().next().value!);
    const forget = () => {
      if (this.entries.get(appId)?.value === value) this.entries.delete(appId);
    };
    value.then((found) => found ?? forget(), forget);
    return value;
  }
}
