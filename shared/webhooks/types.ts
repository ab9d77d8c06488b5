/**
 * Webhooks (docs/webhooks.md): an account's HTTPS endpoints, the events they subscribe to, and
 * the log of deliveries. Endpoint secrets are stored sealed under the master key, never in clear.
 */
import type { ObjectId } from 'mongodb';

export const WEBHOOK_EVENTS = [
  'apk.accepted',
  'apk.rejected',
  'rollout.started',
  'rollout.advanced',
  'rollout.halted',
  'exception.group.new',
  'exception.spike',
  'installation.over_plan',
  'backup.failed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** What a delivery carries: an event, or a test its owner sent to one endpoint by hand. */
export type DeliveryEvent = WebhookEvent | 'webhook.test';

export interface EndpointDoc {
  _id: ObjectId;
  accountId: string;
  url: string;
  events: WebhookEvent[];
  /** The signing secret, sealed (`webhook-secret-seal`, AAD: the endpoint id). */
  secretSealed: string;
  enabled: boolean;
  /** Why it is off: `owner`, or `failing` (automatic, after WEBHOOK_DISABLE_AFTER_DAYS). */
  disabledReason: 'owner' | 'failing' | null;
  /** Start of the current run of failed deliveries; null once one succeeds. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttemptDoc {
  at: Date;
  /** HTTP status of the receiver's reply; null when none came (refused, timed out, SSRF). */
  statusCode: number | null;
  /** The first bytes of the reply body (or the error), for people. */
  excerpt: string;
  durationMs: number;
}

export interface DeliveryDoc {
  _id: ObjectId;
  accountId: string;
  endpointId: ObjectId;
  event: DeliveryEvent;
  /** The event's id (the same in every endpoint's delivery of it): `id` in the body. */
  eventId: string;
  /** The exact JSON body sent (the signature covers it). */
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: AttemptDoc[];
  /** How many times it was redelivered by hand. */
  redeliveries: number;
  createdAt: Date;
  updatedAt: Date;
}
