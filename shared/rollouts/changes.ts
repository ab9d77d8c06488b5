/**
 * What a rollout change leaves besides the rollout: one audit entry (docs/audit.md) and, for a
 * start, an advance or a halt, a webhook event (docs/webhooks.md). The event's key names the
 * change (app, start instant, action, stage), so a retried health-gate job emits it once.
 */
import type { Db } from 'mongodb';
import { recordAudit } from '../audit/record';
import type { AuditAction, AuditContext } from '../audit/types';
import { emitEvent, type EmitDeps } from '../webhooks/deliveries';
import type { WebhookEvent } from '../webhooks/types';
import type { RolloutChange } from './types';

const AUDIT: Readonly<Record<RolloutChange['action'], AuditAction>> = {
  start: 'rollout.started',
  advance: 'rollout.advanced',
  pause: 'rollout.paused',
  resume: 'rollout.resumed',
  halt: 'rollout.halted',
  complete: 'rollout.completed',
};

const EVENTS: Partial<Readonly<Record<RolloutChange['action'], WebhookEvent>>> = {
  start: 'rollout.started',
  advance: 'rollout.advanced',
  halt: 'rollout.halted',
};

export interface ChangeDeps {
  readonly db: Db;
  readonly now: () => Date;
  /** Where webhook deliveries are queued; unset: no events. */
  readonly events?: EmitDeps;
}

/** The `recordChange` of RolloutDeps for changes made by `ctx.actor` from `ctx.address`. */
export function rolloutRecorder(
  deps: ChangeDeps,
  ctx: AuditContext,
): (change: RolloutChange) => Promise<void> {
  return async ({ app, action, doc, reason }) => {
    const stage = doc.stages[doc.stageIndex] ?? null;
    const details = {
      package: app.package,
      apkId: doc.apkId.toHexString(),
      state: doc.state,
      stage: doc.stageIndex,
      percent: stage,
      ...(reason ? { reason } : {}),
    };
    await recordAudit(
      deps.db,
      ctx,
      {
        accountId: app.accountId,
        action: AUDIT[action],
        resource: { kind: 'rollout', id: app.package },
        details,
      },
      deps.now(),
    );
    const event = EVENTS[action];
    if (!event || !deps.events) return;
    const key = `${app._id.toHexString()}|${doc.startedAt.toISOString()}|${action}|${doc.stageIndex}`;
    await emitEvent(deps.events, [app.accountId], event, { ...details, by: ctx.actor.kind }, key);
  };
}
