/**
 * Target selection: which APK an installation should run, given its app's current APK and
 * rollout. The one place every push path asks (the SSE hub, downloads, and the PushLink gateway),
 * so every process and every evaluation picks the same set. Pure.
 */
import type { ApkRef } from '../devices/decide';
import { bucketOf, thresholdOf } from './bucket';
import { percentOf, type RolloutCore, type Targeting } from './rollout';

export interface RolloutView extends RolloutCore {
  readonly appId: string;
  readonly apk: ApkRef;
  readonly targeting: Targeting;
}

export interface AppTargets {
  /** The app's current APK: what every device outside a rollout is offered. */
  readonly current: ApkRef | null;
  readonly rollout: RolloutView | null;
}

export interface TargetedInstallation {
  readonly deviceId: string;
  /** What it reports running: a halted rollout leaves installations of its APK alone. */
  readonly installedMd5: string | null;
  readonly metadata: readonly { readonly key: string; readonly value: string }[];
}

/** True when the installation is inside a running or paused rollout at its percentage. */
export function inRollout(r: RolloutView, inst: TargetedInstallation): boolean {
  if (r.state !== 'running' && r.state !== 'paused') return false;
  if (r.targeting.deviceIds?.includes(inst.deviceId)) return true;
  const m = r.targeting.metadata;
  if (m && !inst.metadata.some((e) => e.key === m.key && m.values.includes(e.value))) return false;
  if (!m && r.targeting.deviceIds && r.targeting.deviceIds.length > 0) return false;
  return bucketOf(r.appId, inst.deviceId) < thresholdOf(percentOf(r));
}

/**
 * Inside a running or paused rollout: its APK. Outside: the current APK. After a halt, devices
 * that installed the halted APK keep it (counted, not touched: offering the previous APK would be
 * a downgrade the OS refuses); loadTargets passes a halted rollout only while the app's current
 * APK is still the one the rollout started from.
 */
export function targetFor(app: AppTargets, inst: TargetedInstallation): ApkRef | null {
  const r = app.rollout;
  if (r?.state === 'halted' && inst.installedMd5 === r.apk.md5) return r.apk;
  if (r && inRollout(r, inst)) return r.apk;
  return app.current;
}
