/** What `start` takes, the client's options, and the checks of start parameters and keys. */
import type { BackoffPolicy } from './backoff';

export interface StartParams {
  readonly apiKey: string;
  readonly deviceId: string;
  readonly packageName: string;
  readonly pushUrl: string;
  readonly baseUrl: string;
  /** Shown in texts ("New version of <app_name>"); default: the package name. */
  readonly appName?: string;
  /** MD5 of the running APK; null: unknown (every current APK is then offered). */
  readonly installedMd5?: string | null;
  readonly device?: { brand?: string; model?: string; osVersion?: string; sdkInt?: number };
  /** Sent once at start, when the platform has GPS enabled. */
  readonly location?: { lat: number; lon: number };
}

export interface ClientOptions {
  readonly applyIntervalMs?: number;
  /** Pinned push-signing key (SPKI DER, base64); default: trust on first use, then pinned. */
  readonly pushPublicKey?: string;
  readonly reconnectBackoff?: BackoffPolicy;
  readonly downloadBackoff?: BackoffPolicy;
  readonly exceptionBackoff?: BackoffPolicy;
  readonly maxTamperedDownloads?: number;
}

export const REQUIRED_START_PARAMS = [
  'apiKey',
  'deviceId',
  'packageName',
  'pushUrl',
  'baseUrl',
] as const;

export class StartParamsError extends TypeError {
  constructor(readonly missing: readonly string[]) {
    super(`Client.start: missing or empty parameters: ${missing.join(', ')}`);
  }
}

type Pair = { key: string; value: string };

export function checkKey(key: string): string {
  if (key === null || key === undefined || typeof key !== 'string' || key === '') {
    throw new TypeError('metadata key must not be null or empty');
  }
  return key;
}

export function pairs(map: Map<string, string>): Pair[] {
  return [...map].map(([key, value]) => ({ key, value }));
}
