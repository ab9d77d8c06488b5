/**
 * The PushLink SDK's push protocol (SDK 5.0.3 to 5.6.0; ../shared/spec/pushlink-device-protocol.md),
 * as the server means it, without sockets: a device's line in, its meaning out. The bytes (line
 * framing, the `mt` lines) are the protocol layer's, device-client/protocol/pushlink-lines.ts,
 * shared with the SDK replay; here a subscribe line's values are validated and mapped to the
 * registration the SSE side makes. Pure.
 *
 * Device → server: a subscribe line (one JSON object), then bare `\n` heartbeats; the subscribe
 * line again when the device's metadata changed. Server → device: only
 * `{"mt":"0","msg":"<md5>"}` (the APK to run) and `{"mt":"1","msg":"<text>"}` (a text the SDK
 * logs), one JSON object per line: the SDK logs anything else as an error.
 */
import {
  INVALID_SUBSCRIBE as BAD,
  readDeviceLine,
} from '../../device-client/protocol/pushlink-lines';
import { AppError } from '../errors';
import { parseMetadata, type RegistrationInput } from './registration-input';

// The legacy push socket writes these lines; it imports them, with the parsing, from here.
export { apkLine, MAX_LINE_BYTES, textLine } from '../../device-client/protocol/pushlink-lines';

/** What the SDK reports in its subscribe line, validated. */
export interface Subscribe {
  readonly apiKey: string;
  /** The heartbeat interval the device uses (SDK ≥ 5.3.0), in seconds; null when not sent. */
  readonly heartbeatSeconds: number | null;
  readonly registration: RegistrationInput;
}

export type DeviceLine =
  | { readonly kind: 'heartbeat' }
  | { readonly kind: 'subscribe'; readonly subscribe: Subscribe }
  /** Refused: `text` is what the device is told (an `mt 1` line). */
  | { readonly kind: 'invalid'; readonly text: string };

const MD5 = /^[0-9a-f]{32}$/;
const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
const VERSION = /^[0-9A-Za-z._-]{1,32}$/;
const STRATEGIES = ['STATUS_BAR', 'FRIENDLY_POPUP', 'ANNOYING_POPUP', 'CUSTOM', 'NO_STRATEGY'];

/** A refusal the device is told as `Device register failed: Invalid subscribe line. <why>`. */
function invalid(why: string): never {
  throw new AppError('VALIDATION_FAILED', { message: `${BAD} ${why}` });
}

function text(o: Record<string, unknown>, key: string, max: number, required = false): string {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) invalid(`${key} is required.`);
    return '';
  }
  if (typeof v !== 'string') invalid(`${key} must be a string.`);
  if (v.length > max) invalid(`${key} must be at most ${max} characters.`);
  if (required && v === '') invalid(`${key} is required.`);
  return v;
}

function md5(o: Record<string, unknown>, key: string): string | null {
  const v = text(o, key, 32).toLowerCase();
  if (v !== '' && !MD5.test(v)) invalid(`${key} must be an MD5 in hex, or empty.`);
  return v === '' ? null : v;
}

function heartbeatSeconds(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 86_400)
    invalid('heartbeatIntervalInSeconds must be a whole number of seconds (1 to 86400).');
  return v;
}

function metadata(v: unknown): RegistrationInput['metadata'] {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) invalid('metadata must be an object.');
  try {
    return parseMetadata(v);
  } catch (err) {
    return invalid(`${(err as Error).message}.`);
  }
}

/** A subscribe line's object, validated and mapped to the registration the SSE side makes. */
export function parseSubscribe(o: Record<string, unknown>): Subscribe {
  const pkg = text(o, 'package', 255, true);
  if (!PACKAGE.test(pkg)) invalid('package must be an Android package name.');
  const plVersion = text(o, 'plVersion', 32);
  if (plVersion !== '' && !VERSION.test(plVersion)) invalid('plVersion must be a version.');
  const strategy = text(o, 'currentStrategy', 32);
  if (strategy !== '' && !STRATEGIES.includes(strategy))
    invalid(`currentStrategy must be one of ${STRATEGIES.join(', ')}.`);
  // Sent by the SDK, not kept: validated so that a malformed line is refused as a whole.
  for (const [key, max] of [
    ['pid', 100],
    ['localAdress', 200],
    ['buildId', 200],
    ['androidId', 100],
  ] as const)
    text(o, key, max);
  const device = {
    brand: text(o, 'brand', 100) || null,
    model: text(o, 'model', 100) || null,
    osVersion: text(o, 'osVersion', 50) || null,
    sdkInt: null,
  };
  return {
    apiKey: text(o, 'apiKey', 200, true),
    heartbeatSeconds: heartbeatSeconds(o.heartbeatIntervalInSeconds),
    registration: {
      package: pkg,
      deviceId: text(o, 'deviceId', 200, true),
      installedMd5: md5(o, 'hash'),
      lastDownloadedMd5: md5(o, 'lastDownloadHash'),
      strategy: strategy === '' || strategy === 'NO_STRATEGY' ? null : strategy,
      device,
      metadata: metadata(o.metadata),
      location: null,
      channel: 'pushlink',
      plVersion: plVersion || null,
    },
  };
}

/** What one line from a device (without its `\n`; a trailing `\r` is allowed) means. */
export function parseDeviceLine(line: Uint8Array): DeviceLine {
  const frame = readDeviceLine(line);
  if (frame.kind !== 'object') return frame;
  try {
    return { kind: 'subscribe', subscribe: parseSubscribe(frame.value) };
  } catch (err) {
    return { kind: 'invalid', text: (err as Error).message };
  }
}

/** What a device whose installation is disabled (beyond the plan, or by its owner) is told. */
export const DISABLED_TEXT =
  'Device register failed: Installation disabled. The plan has no free installation for this device; its owner can enable it.';
