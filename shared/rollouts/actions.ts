/**
 * The rollout use-cases the JSON API, the web administration and the health gate call: start one,
 * and apply an action. Each changes the rollout document, then tells the fleet through the
 * app's notice stream (a completion moves the app's current APK first: see current-apk.ts).
 */
import type { Db } from 'mongodb';
import type { ApkDoc, AppDoc } from '../catalog/types';
import { AppError } from '../errors';
import type { NoticeSink } from '../notices/notice-sink';
import { announceTargets, moveCurrent, publishNotice } from './current-apk';
import type { HealthReport } from './health';
import { parseStages, transition, type RolloutAction } from './rollout';
import { applyAction, findRollout, freshWindow, insertRollout } from './store';
import type { HistoryEntry, RolloutChange, RolloutDoc } from './types';

const MAX_DEVICE_IDS = 10_000;
const MAX_VALUES = 100;

function strings(value: unknown, max: number, what: string): string[] {
  if (
    !Array.isArray(value) ||
    value.length > max ||
    !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 200)
  ) {
    throw new AppError('VALIDATION_FAILED', {
      message: `${what}: a list of at most ${max} non-empty strings (200 characters at most)`,
    });
  }
  return value as string[];
}

export function parseTargeting(value: unknown): RolloutDoc['targeting'] {
  if (value === undefined || value === null) return { metadata: null, deviceIds: [] };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('VALIDATION_FAILED', { message: 'targeting: an object' });
  }
  const t = value as { metadata?: unknown; deviceIds?: unknown };
  const deviceIds =
    t.deviceIds === undefined ? [] : strings(t.deviceIds, MAX_DEVICE_IDS, 'targeting.deviceIds');
  if (t.metadata === undefined || t.metadata === null) return { metadata: null, deviceIds };
  const m = t.metadata as { key?: unknown; values?: unknown };
  const [key] = strings([m.key], 1, 'targeting.metadata.key');
  const values = strings(m.values, MAX_VALUES, 'targeting.metadata.values');
  if (values.length === 0)
    throw new AppError('VALIDATION_FAILED', { message: 'targeting.metadata.values: at least one' });
  return { metadata: { key: key!, values }, deviceIds };
}

export interface RolloutDeps {
  readonly db: Db;
  readonly notices: NoticeSink;
  /** The crash counters of the app's APKs now (the health window opens from them). */
  readonly crashCount: (app: AppDoc, apkId: string | null) => Promise<number>;
  /** Told of every change once it is made: the audit log and webhooks (changes.ts). */
  readonly recordChange?: (change: RolloutChange) => Promise<void>;
}

export async function startRollout(
  deps: RolloutDeps,
  app: AppDoc,
  apk: ApkDoc,
  body: { stages?: unknown; targeting?: unknown },
  now: Date,
): Promise<RolloutDoc> {
  if (app.currentApkId?.equals(apk._id)) {
    throw new AppError('VALIDATION_FAILED', { message: 'this APK is already the current one' });
  }
  const stages = parseStages(body.stages);
  const targeting = parseTargeting(body.targeting);
  const [newBase, oldBase] = await Promise.all([
    deps.crashCount(app, apk._id.toHexString()),
    deps.crashCount(app, app.currentApkId?.toHexString() ?? null),
  ]);
  const doc = await insertRollout(deps.db, {
    _id: app._id,
    accountId: app.accountId,
    package: app.package,
    apkId: apk._id,
    previousApkId: app.currentApkId,
    state: stages.length === 1 ? 'completed' : 'running',
    stages,
    stageIndex: 0,
    targeting,
    startedAt: now,
    stageStartedAt: now,
    updatedAt: now,
    health: freshWindow(now, newBase, oldBase),
  });
  if (doc.state === 'completed')
    await publishNotice(deps.notices, await moveCurrent(deps.db, apk, now));
  else await announceTargets(deps.db, deps.notices, app, now);
  await deps.recordChange?.({ app, action: 'start', doc });
  return doc;
}

/** Applies `action` to the app's rollout (read now, or as the caller read it: `seen`). */
export async function actOnRollout(
  deps: RolloutDeps,
  app: AppDoc,
  action: RolloutAction,
  now: Date,
  by: HistoryEntry['by'] = 'owner',
  health: HealthReport | null = null,
  seen?: RolloutDoc,
): Promise<RolloutDoc> {
  const prev = seen ?? (await findRollout(deps.db, app));
  if (!prev) throw new AppError('NOT_FOUND', { message: 'this app has no rollout' });
  if (transition(prev, action).state !== 'completed') {
    const next = await applyAction(deps.db, prev, action, by, health, now);
    await announceTargets(deps.db, deps.notices, app, now);
    await deps.recordChange?.({ app, action, doc: next });
    return next;
  }
  // Completing: the pointer moves first, so no reader sees the APK withdrawn in between.
  const apk = { _id: prev.apkId, appId: app._id } as ApkDoc;
  const moved = await moveCurrent(deps.db, apk, now);
  const next = await applyAction(deps.db, prev, action, by, health, now);
  await publishNotice(deps.notices, moved);
  await deps.recordChange?.({ app, action, doc: next });
  return next;
}
