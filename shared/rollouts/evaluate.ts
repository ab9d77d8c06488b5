/**
 * One evaluation of the health gate over every running rollout (workers only, on a BullMQ job
 * scheduler: shared/queues/rollout-health.ts). For each: add the installation-hours online of the
 * new and the previous APK since the last evaluation (installations online now × the time since),
 * read the crash counters, judge (health.ts), store the window, and halt or advance when the
 * verdict says so, the decision recorded with its numbers in the rollout's history.
 */
import type { Db } from 'mongodb';
import { onlineByInstalled, type LiveState } from '../devices/store';
import { actOnRollout, type RolloutDeps } from './actions';
import { judgeHealth, type HealthReport, type RolloutSettings } from './health';
import { saveHealth } from './store';
import type { HealthWindow, RolloutDoc } from './types';
import { rolloutsCollections } from './collections';
import { catalogCollections } from '../catalog/collections';

export interface EvaluationDeps extends RolloutDeps {
  readonly live: LiveState;
  readonly heartbeatSeconds: number;
  readonly settings: RolloutSettings;
}

export interface Evaluation {
  readonly appId: string;
  readonly report: HealthReport;
  readonly decision: 'halt' | 'advance' | null;
}

const HOUR_MS = 3_600_000;

async function windowNow(
  deps: EvaluationDeps,
  r: RolloutDoc,
  md5s: { readonly now: string | null; readonly old: string | null },
  now: Date,
): Promise<HealthWindow> {
  const app = { accountId: r.accountId, package: r.package };
  const onlineSince = new Date(now.getTime() - 3 * deps.heartbeatSeconds * 1000);
  const online = await onlineByInstalled(deps, app, onlineSince);
  const from = r.health.lastEvaluatedAt ?? r.health.since;
  const hours = Math.max(0, now.getTime() - from.getTime()) / HOUR_MS;
  const on = (md5: string | null) => (md5 ? (online.get(md5) ?? 0) : 0);
  const appDoc = { _id: r._id } as Parameters<RolloutDeps['crashCount']>[0];
  const [newTotal, oldTotal] = await Promise.all([
    deps.crashCount(appDoc, r.apkId.toHexString()),
    deps.crashCount(appDoc, r.previousApkId?.toHexString() ?? null),
  ]);
  const sample = {
    newCount: Math.max(0, newTotal - r.health.newBase),
    newHours: r.health.newHours + on(md5s.now) * hours,
    oldCount: Math.max(0, oldTotal - r.health.oldBase),
    oldHours: r.health.oldHours + on(md5s.old) * hours,
  };
  const last = judgeHealth(sample, deps.settings);
  return {
    ...r.health,
    lastEvaluatedAt: now,
    newHours: sample.newHours,
    oldHours: sample.oldHours,
    last,
  };
}

/** Evaluates one running rollout; null when it changed meanwhile (the next evaluation sees it). */
export async function evaluateRollout(
  deps: EvaluationDeps & { readonly db: Db },
  r: RolloutDoc,
  now: Date,
): Promise<Evaluation | null> {
  const { apps, apks } = catalogCollections(deps.db);
  const app = await apps.findOne({ _id: r._id, accountId: r.accountId });
  if (!app) return null;
  const md5Of = async (id: RolloutDoc['apkId'] | null) =>
    id ? ((await apks.findOne({ _id: id }))?.md5 ?? null) : null;
  const md5s = { now: await md5Of(r.apkId), old: await md5Of(r.previousApkId) };
  const health = await windowNow(deps, r, md5s, now);
  if (!(await saveHealth(deps.db, r, health))) return null;
  const saved: RolloutDoc = { ...r, health, revision: r.revision + 1 };
  const report = health.last!;
  const soaked = now.getTime() - r.stageStartedAt.getTime() >= deps.settings.soakMs;
  const decision =
    report.verdict === 'halt' ? 'halt' : report.verdict === 'healthy' && soaked ? 'advance' : null;
  if (decision) await actOnRollout(deps, app, decision, now, 'health-gate', report, saved);
  return { appId: r._id.toHexString(), report, decision };
}

/** Evaluates every running rollout (paused ones wait for the owner). */
export async function evaluateRollouts(deps: EvaluationDeps, now: Date): Promise<Evaluation[]> {
  const running = await rolloutsCollections(deps.db).rollouts.find({ state: 'running' }).toArray();
  const results: Evaluation[] = [];
  for (const r of running) {
    const e = await evaluateRollout(deps, r, now);
    if (e) results.push(e);
  }
  return results;
}
