/**
 * What the JSON API and the web administration both need of rollouts: the use-cases' deps and the
 * rollout as the owner sees it (its APKs, how many installations run the new one).
 */
import { apkById } from '../shared/catalog/queries';
import type { AppDoc } from '../shared/catalog/types';
import { countRunning } from '../shared/devices/store';
import type { AuditContext } from '../shared/audit/types';
import type { RolloutDeps } from '../shared/rollouts/actions';
import { rolloutRecorder } from '../shared/rollouts/changes';
import { presentRollout } from '../shared/rollouts/present';
import type { RolloutDoc } from '../shared/rollouts/types';
import type { ApiDeps } from './deps';
import { emitDeps } from './audit-context';

/** The rollout use-cases' deps; with `ctx` (who acts, from where) changes are recorded. */
export function rolloutDeps(deps: ApiDeps, ctx?: AuditContext): RolloutDeps {
  return {
    db: deps.db,
    notices: deps.notices,
    crashCount: (app, apkId) => deps.crashes.read(app._id.toHexString(), apkId),
    ...(ctx ? { recordChange: rolloutChanges(deps, ctx) } : {}),
  };
}

/** Records the rollout changes made by `ctx`'s caller: the audit log and webhooks. */
export function rolloutChanges(deps: ApiDeps, ctx: AuditContext) {
  return rolloutRecorder({ ...emitDeps(deps), events: emitDeps(deps) }, ctx);
}

/** The rollout as the API shows it: its APKs and how many installations run the new one. */
export async function rolloutView(deps: ApiDeps, app: AppDoc, doc: RolloutDoc) {
  const [apk, previous] = await Promise.all([
    apkById(deps.db, app.accountId, doc.apkId),
    doc.previousApkId ? apkById(deps.db, app.accountId, doc.previousApkId) : null,
  ]);
  const installed = apk ? await countRunning(deps, app, apk.md5) : 0;
  return presentRollout(doc, apk, previous, installed);
}
