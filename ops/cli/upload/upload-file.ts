/**
 * Uploads one APK to `POST {base}/apps/api_upload` as a streamed multipart form (naming the APK's
 * package, apk-package.ts, so the server records it), retrying a 503
 * (honouring Retry-After) a few times with p-retry, then, when the server answers with a job
 * (asynchronous mode, or a synchronous wait that ran out), polls the job until it is decided.
 * Sending and following are separate steps so a caller can bound transfers without holding a
 * transfer slot while a job is polled. Nothing here throws: every outcome, network failures
 * included, becomes an UploadResult.
 */
import pRetry from 'p-retry';
import { exchange, retryAfterMs, type HttpReply, type TlsTrust } from './http-client';
import { apkPackage } from './apk-package';
import { streamedForm } from './multipart-stream';
import { pollStatus, type UploadStatus } from './poll-status';
import { coerceError } from '../../../shared/errors';
import { UPLOAD_ID_SOURCE } from '../../../shared/upload-id';

export interface UploadSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly tls: TlsTrust;
  readonly current: boolean;
  readonly whatsnew?: string;
  readonly async: boolean;
  /** Overall deadline of the status polling. */
  readonly pollTimeoutMs: number;
  /** How many times a 503 is retried. */
  readonly retries: number;
  /** Longest Retry-After honoured; longer ones are cut to this. */
  readonly maxRetryAfterMs: number;
}

export interface UploadEvents {
  onStart?(fileSize: number): void;
  onBytes?(n: number): void;
  onPhase?(phase: 'polling' | 'retrying'): void;
}

export interface UploadResult {
  readonly file: string;
  readonly ok: boolean;
  /** HTTP status of the upload request; null when no reply came. */
  readonly status: number | null;
  readonly message: string;
  readonly jobId?: string;
  readonly verdict?: UploadStatus['verdict'];
  readonly apk?: UploadStatus['apk'];
}

class Unavailable extends Error {
  constructor(
    readonly reply: HttpReply,
    readonly waitMs: number,
  ) {
    super(`HTTP ${reply.status}: ${firstLine(reply.text)}`);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? '';
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}

export function uploadUrl(baseUrl: string): URL {
  return new URL(`${baseUrl.replace(/\/+$/, '')}/apps/api_upload`);
}

/**
 * Where to poll a job. The server's statusUrl is used when it is on the base URL's origin; a
 * statusUrl elsewhere (a PUBLIC_BASE_URL the client does not reach) is replaced by the same path
 * under the base URL, so the API key is never sent to another origin.
 */
export function statusTarget(baseUrl: string, jobId: string, statusUrl?: string): URL {
  const base = new URL(baseUrl);
  if (statusUrl) {
    const target = new URL(statusUrl, base);
    if (target.origin === base.origin) return target;
  }
  return new URL(`${baseUrl.replace(/\/+$/, '')}/api/v2/uploads/${encodeURIComponent(jobId)}`);
}

/** The job a reply points at: async JSON `{jobId, statusUrl}` or the sync "still processing" text. */
export function jobOf(reply: HttpReply): { jobId: string; statusUrl?: string } | null {
  if (reply.status !== 202) return null;
  try {
    const body = JSON.parse(reply.text) as { jobId?: unknown; statusUrl?: unknown };
    if (typeof body.jobId === 'string') {
      return {
        jobId: body.jobId,
        ...(typeof body.statusUrl === 'string' ? { statusUrl: body.statusUrl } : {}),
      };
    }
  } catch {
    // plain text
  }
  const match = new RegExp(`(\\S*/api/v2/uploads/(${UPLOAD_ID_SOURCE}))(?![A-Za-z0-9_-])`).exec(
    reply.text,
  );
  return match?.[1] && match[2] ? { jobId: match[2], statusUrl: match[1] } : null;
}

function formFields(s: UploadSettings, pkg: string | null): Array<[string, string]> {
  const fields: Array<[string, string]> = [['apiKey', s.apiKey]];
  if (pkg !== null) fields.push(['package', pkg]);
  if (s.current) fields.push(['current', 'true']);
  if (s.whatsnew !== undefined) fields.push(['whatsnew', s.whatsnew]);
  if (s.async) fields.push(['async', 'true']);
  return fields;
}

async function post(file: string, s: UploadSettings, events: UploadEvents): Promise<HttpReply> {
  const fields = formFields(s, await apkPackage(file));
  const form = await streamedForm(fields, { field: 'apk', path: file });
  return pRetry(
    async () => {
      events.onStart?.(form.fileSize);
      const reply = await exchange({
        method: 'POST',
        url: uploadUrl(s.baseUrl),
        headers: {
          'content-type': form.contentType,
          'content-length': String(form.length),
          accept: 'application/json, text/plain',
        },
        body: form.open((n) => events.onBytes?.(n)),
        tls: s.tls,
      });
      if (reply.status === 503) {
        const wait = Math.min(retryAfterMs(reply.headers, Date.now()) ?? 0, s.maxRetryAfterMs);
        throw new Unavailable(reply, wait);
      }
      return reply;
    },
    {
      retries: s.retries,
      minTimeout: 250,
      factor: 2,
      maxTimeout: 4_000,
      shouldRetry: ({ error }) => error instanceof Unavailable,
      onFailedAttempt: async ({ error, retriesLeft }) => {
        if (!(error instanceof Unavailable) || retriesLeft === 0) return;
        events.onPhase?.('retrying');
        await sleep(error.waitMs);
      },
    },
  );
}

/** A sent upload: decided by the reply itself, or a job still to follow. */
export type Sent =
  | { readonly kind: 'decided'; readonly result: UploadResult }
  | {
      readonly kind: 'job';
      readonly file: string;
      readonly status: number;
      readonly jobId: string;
      readonly statusUrl?: string;
    };

/** Sends the file; the reply either decides it or names a job (see followJob). Never throws. */
export async function sendFile(
  file: string,
  s: UploadSettings,
  events: UploadEvents = {},
): Promise<Sent> {
  let reply: HttpReply;
  try {
    reply = await post(file, s, events);
  } catch (err) {
    const result: UploadResult =
      err instanceof Unavailable
        ? { file, ok: false, status: 503, message: firstLine(err.reply.text) }
        : { file, ok: false, status: null, message: coerceError(err).message };
    return { kind: 'decided', result };
  }
  const job = jobOf(reply);
  if (job) return { kind: 'job', file, status: reply.status, ...job };
  const ok = reply.status >= 200 && reply.status < 300;
  const message = firstLine(reply.text) || `HTTP ${reply.status}`;
  return { kind: 'decided', result: { file, ok, status: reply.status, message } };
}

/** Polls a sent upload's job to its verdict. Never throws. */
export async function followJob(
  sent: Extract<Sent, { kind: 'job' }>,
  s: UploadSettings,
  events: UploadEvents = {},
): Promise<UploadResult> {
  const { file, status, jobId } = sent;
  events.onPhase?.('polling');
  try {
    const decided = await pollStatus(statusTarget(s.baseUrl, jobId, sent.statusUrl), {
      apiKey: s.apiKey,
      tls: s.tls,
      timeoutMs: s.pollTimeoutMs,
    });
    return {
      file,
      ok: decided.status === 'done',
      status,
      message: decided.verdict?.message ?? decided.status,
      jobId,
      verdict: decided.verdict,
      apk: decided.apk,
    };
  } catch (err) {
    return { file, ok: false, status, message: coerceError(err).message, jobId };
  }
}

/** sendFile then, when the reply names a job, followJob. */
export async function uploadFile(
  file: string,
  s: UploadSettings,
  events: UploadEvents = {},
): Promise<UploadResult> {
  const sent = await sendFile(file, s, events);
  return sent.kind === 'decided' ? sent.result : followJob(sent, s, events);
}
