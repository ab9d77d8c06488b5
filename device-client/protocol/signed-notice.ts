/**
 * The signed push notice (format 2) as it travels: its fields, and the bytes its Ed25519
 * signature covers (the UTF-8 canonical JSON of the notice without `signature`). The server signs
 * these bytes (shared/devices/push-signing.ts), the TS client checks them
 * (device-client/core/signed-events.ts) and the Java core checks the same bytes, pinned by the
 * shared vectors (vectors/protocol-vectors.json). How a device judges a notice (audience, clock)
 * is the client's, not the wire's.
 */
import { canonicalJson } from './canonical-json';

/** The notice format: `v` is signed with the rest, so a client can tell and refuse others. */
export const NOTICE_FORMAT = 2;

/** Who a notice is addressed to. */
export interface NoticeAddress {
  readonly v: typeof NOTICE_FORMAT;
  /** The account id the registration reply named. */
  readonly account: string;
  readonly package: string;
  /** A device id, or `*` for every installation of the app in the account. */
  readonly device: string;
  /** When it was signed, as `Date.prototype.toISOString` writes it. */
  readonly issuedAt: string;
}

/** A `version` notice before signing: the APK to run. */
export interface VersionNoticeBody extends NoticeAddress {
  readonly type: 'version';
  readonly apkId: string;
  readonly md5: string;
  readonly sha256: string;
  readonly versionCode: number;
  readonly versionName: string | null;
  readonly size: number;
  readonly url: string;
}

/** A `giveup` notice before signing: the update to withdraw. */
export interface GiveupNoticeBody extends NoticeAddress {
  readonly type: 'giveup';
  readonly apkId: string;
  readonly md5: string | null;
}

export interface VersionEvent extends VersionNoticeBody {
  readonly signature: string;
}

export interface GiveupEvent extends GiveupNoticeBody {
  readonly signature: string;
}

/** The bytes a notice's signature covers: canonical JSON of the notice less `signature`. */
export function signedBytes(event: Readonly<Record<string, unknown>>): Uint8Array {
  const { signature: _signature, ...body } = event;
  return new TextEncoder().encode(canonicalJson(body));
}

const MD5 = /^[0-9a-f]{32}$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** What the server writes (`Date.prototype.toISOString`), and nothing looser. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

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
