/**
 * What one crash group's reports add up to (its page and `GET …/exception-groups/{fingerprint}`):
 * reports per hour over the last 24 h and per day over the last 30 days (rolling, oldest first:
 * bucket i of 24 starts 24 − i hours before now), and how many reports each version and each
 * device sent, most first. Pure: the reports' times, versions and devices go in.
 */
export interface BreakdownReport {
  readonly receivedAt: Date;
  readonly version: string;
  readonly deviceId: string;
}

export interface Tally {
  readonly name: string;
  readonly reports: number;
}

export interface GroupBreakdown {
  readonly hourly: readonly number[];
  readonly daily: readonly number[];
  readonly versions: readonly Tally[];
  readonly devices: readonly Tally[];
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Counts of `times` in `n` buckets of `size` ms ending at `nowMs` (exclusive), oldest first. */
export function buckets(times: readonly Date[], nowMs: number, n: number, size: number): number[] {
  const out = new Array<number>(n).fill(0);
  const start = nowMs - n * size;
  for (const t of times) {
    const i = Math.floor((t.getTime() - start) / size);
    if (i >= 0 && i < n) out[i]! += 1;
  }
  return out;
}

function tally(names: readonly string[]): Tally[] {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts]
    .map(([name, reports]) => ({ name, reports }))
    .sort((a, b) => b.reports - a.reports || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function groupBreakdown(reports: readonly BreakdownReport[], nowMs: number): GroupBreakdown {
  const times = reports.map((r) => r.receivedAt);
  return {
    hourly: buckets(times, nowMs, 24, HOUR_MS),
    daily: buckets(times, nowMs, 30, DAY_MS),
    versions: tally(reports.map((r) => r.version)),
    devices: tally(reports.map((r) => r.deviceId)),
  };
}
