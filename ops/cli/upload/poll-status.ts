/**
 * Polls `GET /api/v2/uploads/{jobId}` until the upload is decided (`done` or `failed`), with a
 * bounded exponential backoff and an overall deadline. Outages on the way (network errors, 5xx)
 * are waited out until the deadline; any other refusal (401, 404) ends the wait at once. Time is
 * a parameter (`now`, `sleep`) so tests can drive it.
 */
import { exchange, type HttpReply, type TlsTrust } from './http-client';

export type UploadState = 'queued' | 'processing' | 'done' | 'failed';

export interface UploadStatus {
  readonly jobId: string;
  readonly status: UploadState;
  readonly verdict: { readonly code: string; readonly message: string } | null;
  readonly apk: Readonly<Record<string, unknown>> | null;
}

export interface PollOptions {
  readonly apiKey: string;
  readonly tls: TlsTrust;
  readonly timeoutMs: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Replaces the real GET (tests). */
  readonly get?: (url: URL) => Promise<HttpReply>;
}

export class PollError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'PollError';
  }
}

const FIRST_DELAY_MS = 200;
const MAX_DELAY_MS = 3_000;
const GROWTH = 1.6;
const STATES: readonly UploadState[] = ['queued', 'processing', 'done', 'failed'];

/** Delay before poll number `attempt` (0-based): 200 ms growing by 1.6x, capped at 3 s. */
export function pollDelayMs(attempt: number): number {
  return Math.min(MAX_DELAY_MS, Math.round(FIRST_DELAY_MS * GROWTH ** attempt));
}

export function parseUploadStatus(text: string): UploadStatus | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.jobId !== 'string' || !STATES.includes(v.status as UploadState)) return null;
  const verdict = v.verdict as Record<string, unknown> | null | undefined;
  const validVerdict =
    verdict === null ||
    verdict === undefined ||
    (typeof verdict.code === 'string' && typeof verdict.message === 'string');
  if (!validVerdict) return null;
  return {
    jobId: v.jobId,
    status: v.status as UploadState,
    verdict: verdict ? { code: String(verdict.code), message: String(verdict.message) } : null,
    apk: typeof v.apk === 'object' && v.apk !== null ? (v.apk as Record<string, unknown>) : null,
  };
}

function transient(status: number): boolean {
  return status === 429 || status >= 500;
}

export async function pollStatus(url: URL, options: PollOptions): Promise<UploadStatus> {
  const now = options.now ?? Date.now;
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const get =
    options.get ??
    ((target: URL) =>
      exchange({
        method: 'GET',
        url: target,
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
        tls: options.tls,
        idleTimeoutMs: 30_000,
      }));
  const deadline = now() + options.timeoutMs;
  let lastProblem: string;
  for (let attempt = 0; ; attempt++) {
    try {
      const reply = await get(url);
      if (reply.status === 200) {
        const status = parseUploadStatus(reply.text);
        if (!status) throw new PollError('the status reply is not an upload status', 200);
        if (status.status === 'done' || status.status === 'failed') return status;
        lastProblem = `still ${status.status}`;
      } else if (transient(reply.status)) {
        lastProblem = `HTTP ${reply.status}`;
      } else {
        throw new PollError(`status request refused: HTTP ${reply.status}`, reply.status);
      }
    } catch (err) {
      if (err instanceof PollError) throw err;
      lastProblem = err instanceof Error ? err.message : String(err);
    }
    const wait = Math.min(pollDelayMs(attempt), deadline - now());
    if (wait <= 0) {
      throw new PollError(
        `not decided within ${Math.round(options.timeoutMs / 1000)} s (${lastProblem})`,
        null,
      );
    }
    await sleep(wait);
  }
}
