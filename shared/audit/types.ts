/**
 * The audit log's vocabulary (docs/audit.md): who did it (an actor), what (an action code), to
 * which resource, when and from which address. Entries are append-only: nothing updates or
 * deletes them (no route, no use-case).
 */
import type { ObjectId } from 'mongodb';

/**
 * Who acted. `kind` names the credential: the account key (JSON API, PushLink forms), a device
 * key or CI token (`device-key`, `ci-token`: id and name of the key), a web session of the
 * account's founding owner (`session`: the account's id and email), a web session of a team member
 * (`member`: the member's id and email), or `system` (the rollout health gate); `id` is stable for
 * the kind, `name` is what a person reads.
 */
export interface Actor {
  readonly kind: string;
  readonly id: string;
  readonly name: string;
}

export const HEALTH_GATE_ACTOR: Actor = Object.freeze({
  kind: 'system',
  id: 'health-gate',
  name: 'rollout health gate',
});

/** Disables a webhook endpoint whose deliveries kept failing (docs/webhooks.md). */
export const WEBHOOK_FAILURES_ACTOR: Actor = Object.freeze({
  kind: 'system',
  id: 'webhook-failures',
  name: 'webhook failure check',
});

/**
 * An upload made current by the worker that accepted it (`current=true`): the changes it causes
 * (a rollout superseded) name the upload, whose own `upload.accepted` entry names who sent it.
 */
export function uploadActor(uploadId: string): Actor {
  return { kind: 'system', id: `upload:${uploadId}`, name: 'upload made current' };
}

export const AUDIT_ACTIONS = [
  /** Written before issue 31 for every upload the API received; `upload.received` since. */
  'upload.accepted',
  'upload.received',
  'app.current.changed',
  'rollout.started',
  'rollout.advanced',
  'rollout.paused',
  'rollout.resumed',
  'rollout.halted',
  'rollout.completed',
  'installation.enabled',
  'installation.disabled',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.redelivered',
  'webhook.tested',
  'access-key.created',
  'access-key.revoked',
  'account-key.restricted',
  'account-key.unrestricted',
  'account-key.regenerated',
  'member.invited',
  'member.invitation-revoked',
  'member.joined',
  'member.role-changed',
  'member.removed',
  'member.totp-enabled',
  'member.totp-disabled',
  'member.totp-recovery-used',
  'member.totp-reset',
  'account.created',
  'account.plan-changed',
  'account.role-granted',
  'account.role-revoked',
  'download-link.created',
  'download-link.revoked',
  'member.password-changed',
  'member.signed-out-everywhere',
  'webhook.disabled',
  'queue.retried',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Values an entry's details may hold: flat, so no key needs '.' or '$' (the embedded server refuses them). */
export type DetailValue = string | number | boolean | null;

export interface AuditResource {
  /**
   * `app`, `upload`, `rollout`, `installation`, `webhook`, `delivery`, `access-key`, `account-key`,
   * `member` (a member's id; the founding owner: the account's id), `invitation`.
   */
  readonly kind: string;
  readonly id: string;
}

/** Who, from where: what a change's caller hands the use-case. */
export interface AuditContext {
  readonly actor: Actor;
  /** The client address (TRUST_PROXY applied); null for the system. */
  readonly address: string | null;
}

export interface AuditEntryDoc {
  _id: ObjectId;
  accountId: string;
  at: Date;
  actor: Actor;
  action: AuditAction;
  resource: AuditResource;
  address: string | null;
  details: Record<string, DetailValue>;
}
