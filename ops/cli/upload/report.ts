/**
 * How upload results are printed: one JSON object per file per line (--json) or one human line,
 * with the API key scrubbed from anything that could echo it (server texts, error messages).
 */
import type { UploadResult } from './upload-file';

const REDACTED = '[redacted]';

/** `text` with every occurrence of `secret` replaced. */
export function redact(text: string, secret: string): string {
  return secret === '' ? text : text.split(secret).join(REDACTED);
}

export function jsonLine(result: UploadResult): string {
  const { file, ok, status, message, jobId, verdict, apk } = result;
  return JSON.stringify({
    file,
    ok,
    status,
    message,
    ...(jobId !== undefined ? { jobId } : {}),
    ...(verdict !== undefined ? { verdict } : {}),
    ...(apk !== undefined ? { apk } : {}),
  });
}

export function humanLine(result: UploadResult): string {
  const head = `${result.ok ? 'ok  ' : 'FAIL'} ${result.file}: ${result.message}`;
  const apk = result.apk;
  const what =
    apk && typeof apk.package === 'string'
      ? ` [${apk.package} versionCode ${String(apk.versionCode)}]`
      : '';
  const status = result.status === null ? ' (no reply)' : ` (HTTP ${result.status})`;
  const job = result.jobId ? ` job ${result.jobId}` : '';
  return `${head}${what}${status}${job}`;
}

export function formatResult(result: UploadResult, json: boolean, apiKey: string): string {
  return `${redact(json ? jsonLine(result) : humanLine(result), apiKey)}\n`;
}
