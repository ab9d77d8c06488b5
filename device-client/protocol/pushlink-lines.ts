/**
 * The PushLink SDK's push socket as bytes (SDK 5.0.3 to 5.6.0; ../shared/spec/
 * pushlink-device-protocol.md), for both ends: the server reads device lines and writes `mt` lines
 * (shared/devices/pushlink-protocol.ts, api/push/legacy/), the TS replay of the SDK writes subscribe
 * lines and reads `mt` lines (device-client/node/pushlink-replay.ts). Framing and encoding only;
 * what a subscribe line's values may be is the server's to validate. Pure.
 *
 * Device → server: a subscribe line (one JSON object), then bare `\n` heartbeats. Server → device:
 * only `{"mt":"0","msg":"<md5>"}` (the APK to run) and `{"mt":"1","msg":"<text>"}` (a text the SDK
 * logs), one JSON object per line.
 */

/** Longest line a device may send, in bytes (a subscribe line with 100 metadata pairs fits). */
export const MAX_LINE_BYTES = 64 * 1024;

/** How every refusal of a device line begins (the rest says why). */
export const INVALID_SUBSCRIBE = 'Device register failed: Invalid subscribe line.';

/** The subscribe line's members as SDK 5.x writes them; 5.0.3 sends none of the optional three. */
export interface SubscribeFields {
  readonly deviceId: string;
  readonly apiKey: string;
  readonly package: string;
  /** MD5 of the installed APK, lowercase hex; '' when unreadable. */
  readonly hash: string;
  readonly plVersion: string;
  readonly pid: string;
  /** Sic: the SDK's spelling. */
  readonly localAdress: string;
  readonly brand: string;
  readonly model: string;
  readonly buildId: string;
  readonly osVersion: string;
  readonly androidId: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly heartbeatIntervalInSeconds?: number;
  readonly lastDownloadHash?: string;
  readonly currentStrategy?: string;
}

/** The spec's order of the members (the SDK does not guarantee one; a fixed one gives one line). */
const SUBSCRIBE_KEYS: ReadonlyArray<keyof SubscribeFields> = [
  'deviceId',
  'apiKey',
  'package',
  'hash',
  'plVersion',
  'pid',
  'localAdress',
  'brand',
  'model',
  'buildId',
  'osVersion',
  'androidId',
  'metadata',
  'heartbeatIntervalInSeconds',
  'lastDownloadHash',
  'currentStrategy',
];

/** The subscribe line a device writes, with its `\n`; absent optional members are left out. */
export function subscribeLine(fields: SubscribeFields): string {
  const line: Record<string, unknown> = {};
  for (const key of SUBSCRIBE_KEYS) if (fields[key] !== undefined) line[key] = fields[key];
  return `${JSON.stringify(line)}\n`;
}

/** One device line, framed: a heartbeat, a JSON object (a subscribe line), or refused. */
export type DeviceFrame =
  | { readonly kind: 'heartbeat' }
  | { readonly kind: 'object'; readonly value: Record<string, unknown> }
  /** Refused: `text` is what the device is told (an `mt 1` line). */
  | { readonly kind: 'invalid'; readonly text: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What one line from a device (without its `\n`) is: its bytes checked, its JSON parsed. */
export function readDeviceLine(line: Uint8Array): DeviceFrame {
  if (line.length > MAX_LINE_BYTES) {
    return { kind: 'invalid', text: `${INVALID_SUBSCRIBE} Longer than ${MAX_LINE_BYTES} bytes.` };
  }
  let s: string;
  try {
    s = utf8.decode(line);
  } catch {
    return { kind: 'invalid', text: `${INVALID_SUBSCRIBE} Not UTF-8.` };
  }
  if (s.trim() === '') return { kind: 'heartbeat' };
  let o: unknown;
  try {
    o = JSON.parse(s);
  } catch {
    return { kind: 'invalid', text: `${INVALID_SUBSCRIBE} Not JSON.` };
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) {
    return { kind: 'invalid', text: `${INVALID_SUBSCRIBE} Not a JSON object.` };
  }
  return { kind: 'object', value: o as Record<string, unknown> };
}

/** `{"mt":"0","msg":"<md5>"}`: the APK the device should run. */
export function apkLine(md5: string): string {
  return `${JSON.stringify({ mt: '0', msg: md5 })}\n`;
}

/** `{"mt":"1","msg":"<text>"}`: a text the SDK writes to the device's log. */
export function textLine(message: string): string {
  return `${JSON.stringify({ mt: '1', msg: message })}\n`;
}

/** A server line as read: `{mt, msg}` when it was a JSON object, else the raw text. */
export type ServerLine = { readonly mt?: unknown; readonly msg?: unknown; readonly raw?: string };

/** One line from the server (without its `\n`), as the SDK reads it. */
export function readServerLine(text: string): ServerLine {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { raw: text };
  } catch {
    return { raw: text };
  }
}
