/** Validation of what devices send at registration and heartbeat. Pure. */
import { AppError } from '../errors';
import type { KeyValue } from './types';

export interface RegistrationInput {
  readonly package: string;
  readonly deviceId: string;
  readonly installedMd5: string | null;
  readonly lastDownloadedMd5: string | null;
  readonly strategy: string | null;
  readonly device: {
    brand: string | null;
    model: string | null;
    osVersion: string | null;
    sdkInt: number | null;
  } | null;
  readonly metadata: KeyValue[] | null;
  readonly location: { lat: number; lon: number } | null;
  /** How the device reaches the push host: apkrelay's stream, or the PushLink SDK's socket. */
  readonly channel: PushChannelKind;
  /** The PushLink SDK's version (`plVersion`), for `pushlink` devices; null otherwise. */
  readonly plVersion: string | null;
}

export type PushChannelKind = 'sse' | 'pushlink';

const MD5 = /^[0-9a-f]{32}$/;
const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
export const MAX_METADATA = 100;
const STRATEGIES = ['STATUS_BAR', 'FRIENDLY_POPUP', 'ANNOYING_POPUP', 'CUSTOM'];

function str(v: unknown, name: string, max: number): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || v.length > max)
    throw new AppError('VALIDATION_FAILED', {
      message: `${name} must be a string of at most ${max} characters`,
    });
  return v;
}

function md5(v: unknown, name: string): string | null {
  const s = str(v, name, 32);
  if (s !== null && !MD5.test(s.toLowerCase()))
    throw new AppError('VALIDATION_FAILED', { message: `${name} must be an MD5 in hex` });
  return s?.toLowerCase() ?? null;
}

/** Metadata as `[{key, value}]` or a `{key: value}` object; keys must not be null or empty. */
export function parseMetadata(v: unknown): KeyValue[] | null {
  if (v === undefined || v === null) return null;
  const pairs: Array<[unknown, unknown]> = Array.isArray(v)
    ? v.map((p: unknown) => [(p as { key?: unknown })?.key, (p as { value?: unknown })?.value])
    : typeof v === 'object'
      ? Object.entries(v as Record<string, unknown>)
      : [[null, null]];
  if (pairs.length > MAX_METADATA)
    throw new AppError('VALIDATION_FAILED', {
      message: `at most ${MAX_METADATA} metadata entries`,
    });
  return pairs.map(([key, value]) => {
    if (typeof key !== 'string' || key === '' || key.length > 200) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'metadata keys must be non-empty strings (at most 200 characters)',
      });
    }
    if (typeof value !== 'string' || value.length > 2000) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'metadata values must be strings (at most 2000 characters)',
      });
    }
    return { key, value };
  });
}

export function parseRegistration(body: unknown): RegistrationInput {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const pkg = str(b.package, 'package', 255);
  if (!pkg || !PACKAGE.test(pkg))
    throw new AppError('VALIDATION_FAILED', { message: 'package must be an Android package name' });
  const deviceId = str(b.deviceId, 'deviceId', 200);
  if (!deviceId) throw new AppError('VALIDATION_FAILED', { message: 'deviceId is required' });
  const strategy = str(b.strategy, 'strategy', 32);
  if (strategy !== null && !STRATEGIES.includes(strategy)) {
    throw new AppError('VALIDATION_FAILED', {
      message: `strategy must be one of ${STRATEGIES.join(', ')}`,
    });
  }
  const d = (typeof b.device === 'object' && b.device !== null ? b.device : null) as Record<
    string,
    unknown
  > | null;
  const sdkInt = d?.sdkInt;
  if (
    sdkInt !== undefined &&
    sdkInt !== null &&
    (typeof sdkInt !== 'number' || !Number.isInteger(sdkInt))
  ) {
    throw new AppError('VALIDATION_FAILED', { message: 'device.sdkInt must be an integer' });
  }
  const loc = b.location as { lat?: unknown; lon?: unknown } | null | undefined;
  let location: RegistrationInput['location'] = null;
  if (loc) {
    const { lat, lon } = loc;
    if (
      typeof lat !== 'number' ||
      typeof lon !== 'number' ||
      Math.abs(lat) > 90 ||
      Math.abs(lon) > 180
    ) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'location must be {lat, lon} in degrees',
      });
    }
    location = { lat, lon };
  }
  return {
    package: pkg,
    deviceId,
    installedMd5: md5(b.installedMd5, 'installedMd5'),
    lastDownloadedMd5: md5(b.lastDownloadedMd5, 'lastDownloadedMd5'),
    strategy,
    device: d
      ? {
          brand: str(d.brand, 'device.brand', 100),
          model: str(d.model, 'device.model', 100),
          osVersion: str(d.osVersion, 'device.osVersion', 50),
          sdkInt: (sdkInt as number | undefined) ?? null,
        }
      : null,
    metadata: parseMetadata(b.metadata),
    location,
    channel: 'sse',
    plVersion: null,
  };
}
