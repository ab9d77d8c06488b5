/**
 * Push events as the server signs them: Ed25519 over the canonical JSON of the event without its
 * `signature` (object keys sorted at every level, undefined members left out). Kept here, not
 * imported from the server's `shared/`, so the library stays standalone; a test proves it agrees
 * byte for byte with `shared/devices/push-signing.ts`.
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

export interface VersionEvent {
  readonly type: 'version';
  readonly package: string;
  readonly apkId: string;
  readonly md5: string;
  readonly sha256: string;
  readonly versionCode: number;
  readonly versionName: string | null;
  readonly size: number;
  readonly url: string;
  readonly issuedAt: string;
  readonly signature: string;
}

export interface GiveupEvent {
  readonly type: 'giveup';
  readonly package: string;
  readonly apkId: string;
  readonly md5: string | null;
  readonly issuedAt: string;
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
    typeof e.signature === 'string';
  return ok ? (e as unknown as VersionEvent) : null;
}

export function asGiveupEvent(e: Record<string, unknown>): GiveupEvent | null {
  const ok =
    e.type === 'giveup' &&
    typeof e.package === 'string' &&
    typeof e.apkId === 'string' &&
    typeof e.signature === 'string';
  return ok ? (e as unknown as GiveupEvent) : null;
}
