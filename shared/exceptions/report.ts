/**
 * An exception report as a device sends it, whichever endpoint carried it (the PushLink form or
 * the JSON API), and its validation. Pure: no I/O. Metadata is a list of `{key, value}` pairs, not
 * an object, because a document key may not hold `.` or start with `$`.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors';

export interface MetadataEntry {
  readonly key: string;
  readonly value: string;
}

export interface ExceptionReport {
  readonly package: string;
  /** MD5 (lowercase hex) of the installed APK: identifies the version. */
  readonly hash: string;
  readonly deviceId: string;
  /** Stack trace lines as the device printed them. */
  readonly stack: readonly string[];
  /** Last lines of the device log (at most MAX_LOG_LINES are kept, the newest). */
  readonly log: readonly string[];
  readonly metadata: readonly MetadataEntry[];
  /** Extra map given to sendAsyncException (JSON API only; the form folds it into metadata). */
  readonly extra: readonly MetadataEntry[];
  /** Screenshot, base64 without whitespace; null when absent. */
  readonly screen: string | null;
  readonly handled: boolean;
}

export const MAX_LOG_LINES = 200;
export const MAX_STACK_LINES = 1_000;
export const MAX_METADATA_ENTRIES = 200;
export const MAX_FIELD_CHARS = 8_192;
const PACKAGE_PATTERN = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Whether base64 `screen` decodes to bytes starting with the JPEG magic FF D8 FF. Anything else
 * (HTML, SVG, a PNG) is dropped at intake, the report kept: the spec gives no refusal text for a
 * bad screenshot, and the crash report is worth more than the picture.
 */
export function isJpegBase64(screen: string): boolean {
  const head = Buffer.from(screen.slice(0, 4), 'base64');
  return head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
}

/** A report the validation refuses (EXCEPTION_REPORT_INVALID), listing every problem. */
export class ReportInvalid extends AppError {
  constructor(readonly problems: readonly string[]) {
    super('EXCEPTION_REPORT_INVALID', { message: problems.join('; ') });
    this.name = 'ReportInvalid';
  }
}

/** Raw fields before validation; the API key travels beside the report, never inside it. */
export interface ReportFields {
  package?: string | undefined;
  hash?: string | undefined;
  deviceId?: string | undefined;
  stack: string[];
  log: string[];
  metadata: MetadataEntry[];
  extra: MetadataEntry[];
  screen?: string | undefined;
  handled?: string | boolean | undefined;
}

/** Checks the fields and returns a report, or throws ReportInvalid listing every problem. */
export function validateReport(fields: ReportFields): ExceptionReport {
  const problems: string[] = [];
  const pkg = fields.package?.trim() ?? '';
  if (!PACKAGE_PATTERN.test(pkg) || pkg.length > 255)
    problems.push('package is missing or invalid');
  const hash = fields.hash?.trim().toLowerCase() ?? '';
  if (hash.length === 0 || hash.length > 128) problems.push('hash is missing or invalid');
  const deviceId = fields.deviceId?.trim() ?? '';
  if (deviceId.length === 0 || deviceId.length > 255) problems.push('deviceId is missing');
  const stack = fields.stack.filter((l) => l.trim().length > 0);
  if (stack.length === 0) problems.push('the stack trace (st[]) is empty');
  if (stack.length > MAX_STACK_LINES) problems.push(`more than ${MAX_STACK_LINES} stack lines`);
  const metadata = [...fields.metadata, ...fields.extra];
  if (metadata.length > MAX_METADATA_ENTRIES) {
    problems.push(`more than ${MAX_METADATA_ENTRIES} metadata entries`);
  }
  if (metadata.some((m) => m.key.length === 0)) problems.push('a metadata key is empty');
  const tooLong = [...stack, ...fields.log, ...metadata.flatMap((m) => [m.key, m.value])].some(
    (s) => s.length > MAX_FIELD_CHARS,
  );
  if (tooLong) problems.push(`a line or metadata entry exceeds ${MAX_FIELD_CHARS} characters`);
  const screen = fields.screen === undefined ? '' : fields.screen.replace(/\s+/g, '');
  if (!BASE64.test(screen) || screen.length % 4 === 1) problems.push('screen is not base64');
  const handled = parseHandled(fields.handled);
  if (handled === undefined) problems.push('handled must be true or false');
  if (problems.length > 0) throw new ReportInvalid(problems);
  return {
    package: pkg,
    hash,
    deviceId,
    stack,
    log: fields.log.slice(-MAX_LOG_LINES),
    metadata: fields.metadata,
    extra: fields.extra,
    screen: isJpegBase64(screen) ? screen : null,
    handled: handled!,
  };
}

function parseHandled(value: string | boolean | undefined): boolean | undefined {
  if (value === undefined || value === '') return false; // automatic reports are unhandled
  if (typeof value === 'boolean') return value;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return undefined;
}

/**
 * The identity of a report's content: the same device resending the same report (a retry after a
 * lost reply) gets the same digest. Every field counts, each length-prefixed so that no two
 * different reports can serialise alike.
 */
export function reportDigest(report: ExceptionReport): string {
  const h = createHash('sha256');
  const put = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    h.update(`${b.length}:`);
    h.update(b);
  };
  const list = (xs: readonly string[]) => {
    put(String(xs.length));
    xs.forEach(put);
  };
  put(report.package);
  put(report.hash);
  put(report.deviceId);
  put(report.handled ? '1' : '0');
  list(report.stack);
  list(report.log);
  list(report.metadata.flatMap((m) => [m.key, m.value]));
  list(report.extra.flatMap((m) => [m.key, m.value]));
  put(report.screen ?? '');
  return h.digest('hex');
}
