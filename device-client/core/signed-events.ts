/**
 * How this device judges a signed push notice: Ed25519 over the protocol layer's signed bytes
 * (device-client/protocol/signed-notice.ts, the definition the server signs with), then the
 * notice's audience and time against this device.
 *
 * Format 2 (`v: 2`) binds a notice to its account, package and device (`*`: every installation of
 * that app in that account) and to `issuedAt`; `checkNotice` refuses anything else, including
 * format 1 notices, which named only the package. The rule is in docs/push.md ("Signed events");
 * test/fixtures/push-notices/vectors.json pins it for this core and the Java one.
 */
import {
  asGiveupEvent,
  asVersionEvent,
  NOTICE_FORMAT,
  signedBytes,
  type GiveupEvent,
  type VersionEvent,
} from '../protocol/signed-notice';
import type { Crypto } from './ports';

/** Who a device is, as notices address it. */
export interface NoticeAudience {
  /** The account id the registration reply named. */
  readonly account: string;
  readonly package: string;
  readonly device: string;
}

export function verifySignature(
  crypto: Crypto,
  publicKey: string,
  event: Record<string, unknown>,
): boolean {
  const { signature } = event;
  if (typeof signature !== 'string') return false;
  try {
    return crypto.verifyEd25519(publicKey, signedBytes(event), signature);
  } catch {
    return false;
  }
}

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
