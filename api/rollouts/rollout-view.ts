/**
 * What the JSON API and the web administration both need of rollouts: the use-cases' deps and the
 * rollout as the owner sees it (its APKs, how many installations run the new one).
 */
import { previewRollout, type RolloutPreview } from '../../shared/rollouts/preview';
import type { Response } from 'express';
import { recordAudit } from '../../shared/audit/record';
import { setCurrentApk } from '../../shared/rollouts/current-apk';
import { apkById } from '../../shared/catalog/queries';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import type { AuditContext } from '../../shared/audit/types';
import type { RolloutDeps } from '../../shared/rollouts/actions';
import { rolloutRecorder } from '../../shared/rollouts/changes';
import { presentRollout } from '../../shared/rollouts/present';
import { offeredCount } from '../../shared/rollouts/reach';
import type { RolloutDoc } from '../../shared/rollouts/types';
import type { ApiDeps } from '../deps';
import { auditContext, currentChange, emitDeps } from '../audit-context';
import type { ClientView } from '../auth';
import { devicesCollections } from '../../shared/devices/collections';

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

/**
 * Makes `apk` current for this request's caller (JSON API and web): the rollout it completes or
 * supersedes and the `app.current.changed` entry are recorded as the caller's doing.
 */
export async function makeCurrentAs(
  deps: ApiDeps,
  req: ClientView,
  res: Response,
  app: AppDoc,
  apk: ApkDoc,
): Promise<AppDoc> {
  const ctx = auditContext(req, res);
  const updated = await setCurrentApk(
    deps.db,
    deps.notices,
    apk,
    deps.now(),
    rolloutChanges(deps, ctx),
  );
  await recordAudit(deps.db, ctx, currentChange(app, apk), deps.now());
  return updated;
}

/** The app's installations as target selection reads them: one query (the preview's too). */
async function appInstallations(deps: Pick<ApiDeps, 'db'>, app: AppDoc) {
  return devicesCollections(deps.db)
    .installations.find(
      { accountId: app.accountId, package: app.package },
      { projection: { deviceId: 1, installedMd5: 1, metadata: 1 } },
    )
    .toArray();
}

/**
 * The rollout as the API shows it: its APKs, how many installations run the new one, how many it
 * offers it now of how many, and the gate's settings its numbers are judged by.
 */
export async function rolloutView(deps: ApiDeps, app: AppDoc, doc: RolloutDoc) {
  const [apk, previous, fleet] = await Promise.all([
    apkById(deps.db, app.accountId, doc.apkId),
    doc.previousApkId ? apkById(deps.db, app.accountId, doc.previousApkId) : null,
    appInstallations(deps, app),
  ]);
  const installed = apk ? fleet.filter((i) => i.installedMd5 === apk.md5).length : 0;
  return presentRollout(doc, {
    apk,
    previous,
    installed,
    offered: offeredCount(doc, app._id.toHexString(), fleet),
    installations: fleet.length,
    gate: deps.rollouts,
  });
}

/** The preview of an app's installations at `percent` (the JSON route's and the Rollouts tab's). */
export async function appPreview(
  deps: Pick<ApiDeps, 'db'>,
  app: AppDoc,
  percent: number,
): Promise<RolloutPreview> {
  const docs = await appInstallations(deps, app);
  return previewRollout(
    app._id.toHexString(),
    docs.map((d) => d.deviceId),
    percent,
  );
}
