/**
 * Push events as the server signs them: Ed25519 over the canonical JSON of the event without its
 * `signature` (object keys sorted at every level, undefined members left out). Kept here, not
 * imported from the server's `shared/`, so the library stays standalone; a test proves it agrees
 * byte for byte with `shared/devices/push-signing.ts`.
 *
 * Format 2 (`v: 2`) binds a notice to its account, package and device (`*`: every installation of
 * that app in that account) and to `issuedAt`; `checkNotice` refuses anything else, including
 * format 1 notices, which named only the package. The rule is in docs/push.md ("Signed events");
 * test/fixtures/push-notices/vectors.json pins it for this core and the Java one.
 */
import type { Crypto } from './ports';

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Who a device is, as notices address it. */
export interface NoticeAudience {
  /** The account id the registration reply named. */
  readonly account: string;
  readonly package: string;
  readonly device: string;
}

interface BoundNotice {
  readonly v: 2;
  readonly account: string;
  readonly package: string;
  /** A device id, or `*` for every installation of the app in the account. */
  readonly device: string;
  readonly issuedAt: string;
}

export interface VersionEvent extends BoundNotice {
  readonly type: 'version';
  readonly apkId: string;
  readonly md5: string;
  readonly sha256: string;
  readonly versionCode: number;
  readonly versionName: string | null;
  readonly size: number;
  readonly url: string;
  readonly signature: string;
}

export interface GiveupEvent extends BoundNotice {
  readonly type: 'giveup';
  readonly apkId: string;
  readonly md5: string | null;
  readonly signature: string;
}

export function verifySignature(
  crypto: Crypto,
  publicKey: string,
  event: Record<string, unknown>,
): boolean {
  const { signature, ...body } = event;
  if (typeof signature !== 'string') return false;
  try {
    return crypto.verifyEd25519(
      publicKey,
      new TextEncoder().encode(canonicalJson(body)),
      signature,
    );
  } catch {
    return false;
  }
}

const MD5 = /^[0-9a-f]{32}$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** What the server writes (`Date.prototype.toISOString`), and nothing looser. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The notice format this client accepts. */
export const NOTICE_FORMAT = 2;
/** How far `issuedAt` may be from this device's clock, either way (see docs/push.md). */
export const NOTICE_CLOCK_SKEW_MS = 24 * 3_600_000;
/** How much older than the last accepted notice one may be (API processes' clocks differ). */
export const NOTICE_ORDER_SLACK_MS = 60_000;

export type NoticeVerdict =
  | { readonly ok: true; readonly event: VersionEvent | GiveupEvent; readonly issuedAtMs: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks a `version` or `giveup` notice for this device: its shape, format 2, that it is addressed
 * to this app, account and device (or `*`), its signature, and its time: not more than
 * NOTICE_ORDER_SLACK_MS older than the last notice accepted (`lastAcceptedAtMs`, null when none),
 * and within NOTICE_CLOCK_SKEW_MS of `nowMs`. The caller stores `issuedAtMs` of accepted notices
 * (the later of it and the last one). Pure, with the clock as a parameter.
 */
export function checkNotice(
  crypto: Crypto,
  publicKey: string,
  sseEvent: string,
  data: Record<string, unknown>,
  to: NoticeAudience,
  lastAcceptedAtMs: number | null,
  nowMs: number,
): NoticeVerdict {
  const refuse = (reason: string): NoticeVerdict => ({ ok: false, reason });
  const event = sseEvent === 'version' ? asVersionEvent(data) : asGiveupEvent(data);
  if (!event) return refuse('malformed event');
  if (data.v !== NOTICE_FORMAT) return refuse('unsupported notice format');
  if (typeof data.account !== 'string' || typeof data.device !== 'string') {
    return refuse('malformed event');
  }
  if (event.package !== to.package) return refuse('event addressed to another app');
  if (event.account !== to.account) return refuse('event addressed to another account');
  if (event.device !== '*' && event.device !== to.device) {
    return refuse('event addressed to another device');
  }
  if (!verifySignature(crypto, publicKey, data)) return refuse('bad signature');
  const issuedAtMs = Date.parse(event.issuedAt);
  if (lastAcceptedAtMs !== null && issuedAtMs < lastAcceptedAtMs - NOTICE_ORDER_SLACK_MS) {
    return refuse('older than the last accepted notice');
  }
  if (Math.abs(issuedAtMs - nowMs) > NOTICE_CLOCK_SKEW_MS) {
    return refuse("issued too far from this device's clock");
  }
  return { ok: true, event, issuedAtMs };
}

function isInstant(value: unknown): value is string {
  return typeof value === 'string' && INSTANT.test(value) && !Number.isNaN(Date.parse(value));
}

/** The event's shape, checked before its signature (a malformed event is refused alike). */
export function asVersionEvent(e: Record<string, unknown>): VersionEvent | null {
  const ok =
    e.type === 'version' &&
    typeof e.package === 'string' &&
    typeof e.apkId === 'string' &&
    typeof e.md5 === 'string' &&
    MD5.test(e.md5) &&
    typeof e.sha256 === 'string' &&
    SHA256.test(e.sha256) &&
    typeof e.versionCode === 'number' &&
    typeof e.size === 'number' &&
    typeof e.url === 'string' &&
    isInstant(e.issuedAt) &&
    typeof e.signature === 'string';
  return ok ? (e as unknown as VersionEvent) : null;
}

export function asGiveupEvent(e: Record<string, unknown>): GiveupEvent | null {
  const ok =
    e.type === 'giveup' &&
    typeof e.package === 'string' &&
    typeof e.apkId === 'string' &&
    isInstant(e.issuedAt) &&
    typeof e.signature === 'string';
  return ok ? (e as unknown as GiveupEvent) : null;
}
