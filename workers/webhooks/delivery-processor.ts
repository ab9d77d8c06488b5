/**
 * Processor of `webhook-delivery`: signs a delivery's body with its endpoint's secret (unsealed
 * here, never in the job) and POSTs it behind the SSRF guard. Every attempt is logged on the
 * delivery. Idempotent: a delivery already delivered is not sent again by a retried job (only a
 * redelivery by hand, a new job, sends it again). Permanent: a missing delivery or endpoint, a
 * disabled endpoint, a refused address. After WEBHOOK_DISABLE_AFTER_DAYS of failures without a
 * success the endpoint is disabled (docs/webhooks.md#automatic-disabling).
 */
import { UnrecoverableError } from 'bullmq';
import { ObjectId, type Db } from 'mongodb';
import { recordAudit } from '../../shared/audit/record';
import { WEBHOOK_FAILURES_ACTOR } from '../../shared/audit/types';
import type { KeyRing } from '../../shared/crypto/keys';
import { AppError } from '../../shared/errors';
import type {
  WebhookDeliveryPayload,
  WebhookDeliveryResult,
} from '../../shared/queues/webhook-delivery';
import { recordAttempt } from '../../shared/webhooks/deliveries';
import { pinnedAddress, postPinned, type DeliverOptions } from '../../shared/webhooks/deliver';
import { openSecret, underEndpointLock } from '../../shared/webhooks/endpoints';
import { SIGNATURE_HEADER, signDelivery, TIMESTAMP_HEADER } from '../../shared/webhooks/signature';
import type { DeliveryDoc, EndpointDoc } from '../../shared/webhooks/types';
import type { AccountSlots } from '../../shared/webhooks/account-slots';
import type { JobContext, Processor } from '../processor';
import { webhooksCollections } from '../../shared/webhooks/collections';

export interface WebhookSettings {
  readonly allowPrivate: boolean;
  readonly disableAfterDays: number;
  readonly timeoutMs: number;
  /** WEBHOOK_ACCOUNT_CONCURRENCY: attempts of one account's deliveries under way at once. */
  readonly accountConcurrency?: number;
  /** Extra trusted CA for receivers (tests). */
  readonly ca?: string;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowPrivate: false,
  disableAfterDays: 3,
  timeoutMs: 10_000,
  accountConcurrency: 2,
};

export interface WebhookDeliveryDeps {
  readonly db: Db;
  readonly keys: KeyRing;
  readonly now: () => Date;
  readonly webhooks: WebhookSettings;
  /** One account's attempts under way at once, across workers; unset: unbounded (tests). */
  readonly slots?: AccountSlots;
}

const DAY_MS = 86_400_000;

/** A failure: starts the endpoint's failing run, and disables it once the run is too long. */
async function noteFailure(deps: WebhookDeliveryDeps, ep: EndpointDoc, at: Date): Promise<boolean> {
  if (ep.failingSince === null)
    await underEndpointLock(deps.db, ep._id, () =>
      webhooksCollections(deps.db).endpoints.updateOne(
        { _id: ep._id, failingSince: null },
        { $set: { failingSince: at } },
      ),
    );
  const since = ep.failingSince ?? at;
  if (at.getTime() - since.getTime() < deps.webhooks.disableAfterDays * DAY_MS) return false;
  const disabled = await underEndpointLock(deps.db, ep._id, () =>
    webhooksCollections(deps.db).endpoints.updateOne(
      { _id: ep._id, enabled: true },
      { $set: { enabled: false, disabledReason: 'failing', updatedAt: at } },
    ),
  );
  // One entry, by the delivery that switched it off (a concurrent one finds it off already).
  if (disabled.modifiedCount === 1) {
    const change = {
      accountId: ep.accountId,
      action: 'webhook.disabled' as const,
      resource: { kind: 'webhook', id: ep._id.toHexString() },
      details: { reason: 'failing', failingSince: since.toISOString() },
    };
    await recordAudit(deps.db, { actor: WEBHOOK_FAILURES_ACTOR, address: null }, change, at);
  }
  return true;
}

async function attempt(
  deps: WebhookDeliveryDeps,
  ep: EndpointDoc,
  body: string,
  ctx: JobContext,
): Promise<{ statusCode: number | null; excerpt: string; refused: boolean }> {
  const options: DeliverOptions = {
    allowPrivate: deps.webhooks.allowPrivate,
    timeoutMs: deps.webhooks.timeoutMs,
    ...(deps.webhooks.ca ? { ca: deps.webhooks.ca } : {}),
  };
  const url = new URL(ep.url);
  try {
    const address = await pinnedAddress(url, options);
    const { timestamp, signature } = signDelivery(openSecret(deps.keys, ep), body, deps.now());
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'apkrelay-webhooks',
      [TIMESTAMP_HEADER]: timestamp,
      [SIGNATURE_HEADER]: signature,
    };
    const reply = await postPinned(url, address, headers, body, options);
    return { ...reply, refused: false };
  } catch (err) {
    const refused = err instanceof AppError && err.code === 'WEBHOOK_TARGET_REFUSED';
    ctx.log.warn({ endpointId: ep._id.toHexString(), error: String(err) }, 'delivery failed');
    return { statusCode: null, excerpt: String((err as Error).message), refused };
  }
}

export function webhookDeliveryProcessor(
  deps: WebhookDeliveryDeps,
): Processor<WebhookDeliveryPayload, WebhookDeliveryResult> {
  return async (payload, ctx) => {
    const delivery = await webhooksCollections(deps.db).deliveries.findOne({
      _id: new ObjectId(payload.deliveryId),
    });
    if (!delivery) throw new UnrecoverableError('the delivery is gone');
    if (delivery.state === 'delivered' && delivery.redeliveries === payload.redelivery) {
      return { outcome: 'skipped', statusCode: null };
    }
    const slots = deps.slots;
    if (!slots) return deliverOnce(deps, delivery, ctx);
    // The lease outlives the attempt: DNS, then one deadline over the POST.
    const leaseMs = 2 * deps.webhooks.timeoutMs + LEASE_MARGIN_MS;
    if (!(await slots.take(delivery.accountId, ctx.jobId, Date.now(), leaseMs))) {
      return ctx.defer(DEFER_MS + Math.floor(Math.random() * DEFER_MS));
    }
    try {
      return await deliverOnce(deps, delivery, ctx);
    } finally {
      await slots.release(delivery.accountId, ctx.jobId);
    }
  };
}

/** A delivery waiting for a slot of its account tries again after this (plus up to as much). */
const DEFER_MS = 500;
const LEASE_MARGIN_MS = 10_000;

async function deliverOnce(
  deps: WebhookDeliveryDeps,
  delivery: DeliveryDoc,
  ctx: JobContext,
): Promise<WebhookDeliveryResult> {
  const ep = await webhooksCollections(deps.db).endpoints.findOne({ _id: delivery.endpointId });
  if (!ep?.enabled) {
    await recordAttempt(deps.db, delivery._id, skipped(deps.now()), 'failed');
    return { outcome: 'disabled', statusCode: null };
  }
  const started = Date.now();
  const r = await attempt(deps, ep, delivery.body, ctx);
  const at = deps.now();
  const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
  const log = {
    at,
    statusCode: r.statusCode,
    excerpt: r.excerpt,
    durationMs: Date.now() - started,
  };
  if (ok) {
    await recordAttempt(deps.db, delivery._id, log, 'delivered');
    // Only when a failing run ends: a write per delivery would be a write racing the owner's.
    if (ep.failingSince !== null)
      await underEndpointLock(deps.db, ep._id, () =>
        webhooksCollections(deps.db).endpoints.updateOne(
          { _id: ep._id },
          { $set: { failingSince: null } },
        ),
      );
    return { outcome: 'delivered', statusCode: r.statusCode };
  }
  // The failure is noted first: an attempt that disables the endpoint is its delivery's last
  // (the job ends; no retry comes), so the delivery must read failed, not pending.
  const disabled = await noteFailure(deps, ep, at);
  const last = disabled || r.refused || ctx.attempt >= ctx.maxAttempts;
  await recordAttempt(deps.db, delivery._id, log, last ? 'failed' : 'pending');
  if (disabled) return { outcome: 'disabled', statusCode: r.statusCode };
  if (r.refused) throw new UnrecoverableError(r.excerpt);
  throw new AppError('WEBHOOK_DELIVERY_FAILED', {
    message: `delivery failed: ${r.statusCode ?? r.excerpt}`,
  });
}

function skipped(at: Date) {
  return { at, statusCode: null, excerpt: 'endpoint disabled or deleted', durationMs: 0 };
}
