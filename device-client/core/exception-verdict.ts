/**
 * What the service's reply to one exception report means for the queue (exception-queue.ts):
 * retry later, or a final verdict (REGISTERED or LOST, with the reason and message shown to the
 * developer) and, when the reply says the sending budget is spent, how long to hold the rest.
 * Pure: the reply and the time in, the decision out.
 */
import { retryAfterMs } from './backoff';
import type { HttpReply } from './ports';

export type ReportOutcome =
  | { readonly kind: 'retry'; readonly reason: string; readonly retryAfterMs: number | null }
  | {
      readonly kind: 'final';
      readonly status: 'REGISTERED' | 'LOST';
      /** Null when registered. */
      readonly reason: string | null;
      readonly message: string;
      /** Budget spent: hold the queue this long (ms), until `holdUntil`; null otherwise. */
      readonly holdMs: number | null;
      readonly holdUntil: string | null;
    };

interface Verdict {
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  budget?: { remaining?: unknown; freesAt?: unknown } | null;
  error?: { code?: unknown; message?: unknown };
}

const text = (...candidates: unknown[]): string | undefined =>
  candidates.find((c): c is string => typeof c === 'string');

export function judgeReportReply(reply: HttpReply, nowMs: number): ReportOutcome {
  let verdict: Verdict = {};
  try {
    const parsed: unknown = JSON.parse(reply.text);
    if (parsed && typeof parsed === 'object') verdict = parsed;
  } catch {
    /* not JSON: judged by the status alone */
  }
  // A verdict is final whatever the status (the limit's LOST comes with 429); a bare 429,
  // 408 or 5xx (no verdict) means "not now".
  const isVerdict = verdict.status === 'REGISTERED' || verdict.status === 'LOST';
  if (!isVerdict && (reply.status === 429 || reply.status >= 500 || reply.status === 408)) {
    const retryAfter = retryAfterMs(reply.headers['retry-after'], nowMs);
    return { kind: 'retry', reason: `HTTP ${reply.status}`, retryAfterMs: retryAfter };
  }
  const registered = verdict.status === 'REGISTERED' && reply.status < 300;
  const reason = registered
    ? null
    : (text(verdict.reason, verdict.error?.code) ?? `HTTP ${reply.status}`);
  const message = text(verdict.message, verdict.error?.message) ?? '';
  // Budget hint: none remaining until freesAt → hold the rest rather than have them LOST.
  const { budget } = verdict;
  const until =
    budget && budget.remaining === 0 && typeof budget.freesAt === 'string'
      ? Date.parse(budget.freesAt)
      : NaN;
  const hold = Number.isNaN(until) || until <= nowMs ? null : until - nowMs;
  return {
    kind: 'final',
    status: registered ? 'REGISTERED' : 'LOST',
    reason,
    message,
    holdMs: hold,
    holdUntil: hold === null ? null : (budget!.freesAt as string),
  };
}
