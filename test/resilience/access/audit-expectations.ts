/**
 * Issue 31, finding 7: what each state-changing route of the route table writes to the audit log,
 * written by hand. The access matrix test requires an entry here for every route that is not a
 * GET (and no entry for a route that is not served), and for each of its cases compares the
 * entries the request added (non-system actors) with this: an allowed request that did its work
 * (2xx or 3xx) writes exactly one entry of `action` (plus the `also` entries a change causes,
 * such as a rollout a new current APK completes), unless `noop` says when it changes nothing;
 * anything refused (or a 4xx page that counts as reaching the route) writes none; a route that
 * changes no account's data (`none`) never writes one.
 */

export type AuditExpectation =
  | {
      readonly action: readonly string[];
      readonly also?: readonly string[];
      /** When an allowed request may change nothing, and record nothing. */
      readonly noop?: string;
      /** When a request answered 4xx may still have recorded its one entry. */
      readonly refusedAfter?: string;
    }
  | { readonly none: string };

const one = (...action: string[]) => ({ action });
const ROLLOUT_ACTIONS = ['paused', 'resumed', 'advanced', 'halted', 'completed'].map(
  (a) => `rollout.${a}`,
);
/** Making an APK current completes its rollout or halts another's (docs/audit.md). */
const CURRENT = { action: ['app.current.changed'], also: ['rollout.completed', 'rollout.halted'] };
const STATUS = {
  action: ['installation.enabled', 'installation.disabled'],
  noop: 'setting the status an installation has',
};
const RESTRICTION = one('account-key.restricted', 'account-key.unrestricted');
/** The upload's entry is written once it is queued, before the verdict a 4xx reply tells. */
const UPLOAD = {
  action: ['upload.received'],
  refusedAfter:
    "a queued upload refused by its verdict (duplicate, not an APK, or a CI token's APK of another app)",
};
const DEVICE =
  'a device reports (registration, heartbeat, exception): telemetry, not a change by a person';

export const AUDIT_EXPECTATIONS: Readonly<Record<string, AuditExpectation>> = {
  'POST /api/v2/accounts': one('account.created'),
  'POST /ui/signup': one('account.created'),
  'POST /ui/login': { none: 'signs in: a session, no change to the account' },
  'POST /ui/logout': { none: "ends the caller's own session" },
  'POST /ui/login/totp': {
    none: "the login's code step (a recovery code used is member.totp-recovery-used)",
  },
  'POST /api/v2/account/keys': one('access-key.created'),
  'DELETE /api/v2/account/keys/:id': { ...one('access-key.revoked'), noop: 'a revoked key again' },
  'POST /ui/account/keys': one('access-key.created'),
  'POST /ui/account/keys/:id/revoke': { ...one('access-key.revoked'), noop: 'a revoked key again' },
  'PUT /api/v2/account/api-key-restriction': RESTRICTION,
  'POST /ui/account/api-key-restriction': RESTRICTION,
  'POST /ui/api-key': one('account-key.regenerated'),
  'POST /ui/account/password': one('member.password-changed'),
  'POST /ui/account/sign-out-everywhere': one('member.signed-out-everywhere'),
  'POST /ui/account/totp': { none: 'stores a seed that is off until confirmed (totp-enabled)' },
  'POST /ui/account/totp/confirm': one('member.totp-enabled'),
  'POST /ui/account/totp/disable': one('member.totp-disabled'),
  'POST /apps/api_upload': UPLOAD,
  'POST /api/v2/apps/:package/apks': UPLOAD,
  'POST /ui/apks': UPLOAD,
  'POST /ui/apps/:package/apks': UPLOAD,
  'PUT /api/v2/apps/:package/current': CURRENT,
  'POST /ui/apps/:package/current': CURRENT,
  'POST /api/v2/apps/:package/rollout': one('rollout.started'),
  'POST /ui/apps/:package/rollouts': one('rollout.started'),
  'POST /api/v2/apps/:package/rollout/:action': one(...ROLLOUT_ACTIONS),
  'POST /ui/apps/:package/rollouts/:action': one(...ROLLOUT_ACTIONS),
  'POST /api/v2/apps/:package/download-links': one('download-link.created'),
  'POST /ui/apps/:package/download-links': one('download-link.created'),
  'DELETE /api/v2/download-links/:id': {
    ...one('download-link.revoked'),
    noop: 'a revoked link again',
  },
  'PUT /api/v2/apps/:package/installations/:deviceId': STATUS,
  'POST /ui/apps/:package/installations/:deviceId/status': STATUS,
  'POST /api/v2/installations': { none: DEVICE },
  'POST /api/v2/heartbeat': { none: DEVICE },
  'POST /exception': { none: DEVICE },
  'POST /api/v2/exceptions': { none: DEVICE },
  'POST /api/v2/webhooks': one('webhook.created'),
  'PUT /api/v2/webhooks/:id': one('webhook.updated'),
  'DELETE /api/v2/webhooks/:id': one('webhook.deleted'),
  'POST /api/v2/webhook-deliveries/:deliveryId/redeliver': one('webhook.redelivered'),
  'POST /ui/webhook-deliveries/:deliveryId/redeliver': one('webhook.redelivered'),
  'POST /ui/webhooks': one('webhook.created'),
  'POST /ui/webhooks/:id': one('webhook.updated'),
  'POST /ui/webhooks/:id/test': one('webhook.tested'),
  'PUT /api/v2/audit/:id': { none: 'refused to everyone: the log is append-only' },
  'DELETE /api/v2/audit/:id': { none: 'refused to everyone: the log is append-only' },
  'POST /ui/members/invitations': one('member.invited'),
  'POST /ui/members/invitations/:id/revoke': one('member.invitation-revoked'),
  'POST /ui/members/:id/role': { ...one('member.role-changed'), noop: 'the role it has' },
  'POST /ui/members/:id/remove': { ...one('member.removed'), also: ['member.invitation-revoked'] },
  'POST /ui/join/:token': one('member.joined'),
};

/**
 * The problem with the entries a case added, or null when they are as expected. `did`: the route
 * did its work for the caller (allowed, and not a 4xx page).
 */
export function auditProblem(
  expected: AuditExpectation,
  outcome: { readonly allowed: boolean; readonly status: number },
  added: readonly string[],
): string | null {
  const did = outcome.allowed && outcome.status < 400;
  const refusedOnce =
    !('none' in expected) &&
    expected.refusedAfter !== undefined &&
    added.length === 1 &&
    expected.action.includes(added[0]!);
  if ('none' in expected || !did) {
    return added.length === 0 || refusedOnce ? null : `wrote ${added.join(', ')}, expected nothing`;
  }
  const primary = added.filter((a) => expected.action.includes(a));
  const others = added.filter((a) => !expected.action.includes(a) && !expected.also?.includes(a));
  if (others.length > 0) return `wrote ${added.join(', ')}: ${others.join(', ')} unexpected`;
  if (primary.length === 1) return null;
  if (primary.length === 0 && expected.noop) return null;
  return `wrote ${added.join(', ') || 'nothing'}, expected one of ${expected.action.join(' | ')}`;
}
