/**
 * The one time format of the web administration: relative to the page's "now" ("3 min ago",
 * "in 2 h"), the exact UTC time on hover and in `datetime`. Pages are rendered on the server, so
 * "now" is the request's time, passed in: the same page renders the same text in a test.
 */
import { html, type Html } from './html';

const UNITS: ReadonlyArray<readonly [number, string]> = [
  [365 * 86_400_000, 'y'],
  [30 * 86_400_000, 'mo'],
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];

/** "just now", "42 s ago", "3 min ago", "in 2 h", "5 d ago": the largest whole unit. */
export function relativeText(at: Date, now: Date): string {
  const delta = at.getTime() - now.getTime();
  const size = Math.abs(delta);
  if (size < 1_000) return 'just now';
  const [unit, name] = UNITS.find(([ms]) => size >= ms) ?? UNITS[UNITS.length - 1]!;
  const n = Math.floor(size / unit);
  return delta < 0 ? `${n} ${name} ago` : `in ${n} ${name}`;
}

/** The exact time as shown on hover: "2026-11-29 01:23:44 UTC". */
export function exactText(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A `<time>` element: relative text, exact time as its title and machine-readable datetime. */
export function when(at: Date | string, now: Date): Html {
  const date = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return html`<time>${String(at)}</time>`;
  return html`<time datetime="${date.toISOString()}" title="${exactText(date)}"
    >${relativeText(date, now)}</time
  >`;
}
