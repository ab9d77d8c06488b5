/**
 * Fingerprint of an exception's stack: reports with the same fingerprint are one issue. Pure.
 *
 * Normalisation keeps what identifies the bug and drops what varies between builds and runs:
 * - the exception class of the first line and of every `Caused by:` (messages dropped: they hold
 *   ids, paths and numbers);
 * - each `at` frame's method and file, without line numbers (`Foo.java:42` → `Foo.java`),
 *   addresses and lambda/synthetic counters (`lambda$onClick$0`, `$$ExternalSyntheticLambda3`);
 * - `... N more` and suppressed lines are dropped.
 */
import { createHash } from 'node:crypto';

const FRAME = /^\s*at\s+(.+?)\s*(?:\((.*)\))?\s*$/;
const CAUSE = /^\s*Caused by:\s*(.*)$/;
const MORE = /^\s*\.\.\.\s*\d+\s+more\s*$/;
const SUPPRESSED = /^\s*Suppressed:\s*/;

/** The class name at the start of an exception line (`java.lang.X: message` → `java.lang.X`). */
export function exceptionClass(line: string): string {
  const head = line.trim().split(/:\s/, 1)[0] ?? '';
  return head.replace(/:$/, '').trim();
}

function normaliseMethod(method: string): string {
  return method
    .replace(/\$\$ExternalSynthetic[A-Za-z]*\d*/g, '$$synthetic')
    .replace(/\$(lambda|Lambda)\$?\d+/g, '$$lambda')
    .replace(/lambda\$([A-Za-z0-9_]+)\$\d+/g, 'lambda$$$1')
    .replace(/\$\d+/g, '$$N')
    .replace(/@[0-9a-fA-F]+/g, '')
    .replace(/0x[0-9a-fA-F]+/g, '');
}

function normaliseLocation(location: string | undefined): string {
  if (location === undefined) return '';
  const file = location.replace(/:\d+(:\d+)?$/, '').trim();
  if (/^Unknown Source|^Native Method$/.test(file)) return file.replace(/:.*$/, '');
  return file;
}

/** The normalised lines a fingerprint is computed from (exposed for tests and display). */
export function normaliseStack(lines: readonly string[]): string[] {
  const out: string[] = [];
  let expectHeader = true;
  for (const raw of lines) {
    if (raw.trim().length === 0 || MORE.test(raw)) continue;
    if (SUPPRESSED.test(raw)) break; // suppressed exceptions do not identify the bug
    const cause = CAUSE.exec(raw);
    if (cause) {
      out.push(`cause ${exceptionClass(cause[1] ?? '')}`);
      expectHeader = false;
      continue;
    }
    const frame = FRAME.exec(raw);
    if (frame) {
      out.push(`at ${normaliseMethod(frame[1] ?? '')} ${normaliseLocation(frame[2])}`.trim());
      expectHeader = false;
      continue;
    }
    if (expectHeader) {
      out.push(`class ${exceptionClass(raw)}`);
      expectHeader = false;
    }
    // Other lines are continuation of a multi-line message: ignored.
  }
  return out;
}

/** SHA-256 (hex, 32 chars kept) of the normalised stack. */
export function fingerprint(lines: readonly string[]): string {
  return createHash('sha256').update(normaliseStack(lines).join('\n')).digest('hex').slice(0, 32);
}

/** A short title for the group: the outermost exception line, trimmed. */
export function stackTitle(lines: readonly string[]): string {
  const first = lines.find((l) => l.trim().length > 0) ?? '';
  return first.trim().slice(0, 300);
}
