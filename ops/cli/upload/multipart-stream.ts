/**
 * A multipart/form-data body streamed from disk: the text fields and the file part's headers
 * (preamble), the file itself, then the closing boundary (epilogue). The length is exact and
 * known before the first byte is sent, so the request carries Content-Length.
 *
 * The file goes through two fixed buffers, each refilled only once the connection has flushed
 * what it held: memory stays flat whatever the file's size (a stream of fresh chunks leaves
 * every sent chunk to the garbage collector, and the process grows by a third of a 300 MB file
 * before it runs).
 */
import { randomBytes } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';

export interface MultipartFile {
  /** The form field name of the file part. */
  readonly field: string;
  readonly path: string;
  readonly contentType?: string;
}

/** One attempt's body. */
export interface FormBody {
  /** Writes the whole body to `out`; resolves once `out` has flushed the last byte. */
  writeTo(out: Writable): Promise<void>;
  /** Stops writing: the server answered early, or the exchange failed. `writeTo` then resolves. */
  stop(): void;
}

export interface StreamedForm {
  readonly contentType: string;
  /** Total bytes of the body. */
  readonly length: number;
  /** Bytes of the file alone (for progress). */
  readonly fileSize: number;
  /** A fresh body; call once per attempt. `onFileBytes` counts file bytes as they are flushed. */
  open(onFileBytes?: (n: number) => void): FormBody;
}

const APK_TYPE = 'application/vnd.android.package-archive';
const READ_CHUNK = 256 * 1024;

/** A header-safe quoted string: no CR/LF, quotes and backslashes escaped. */
function quoted(value: string): string {
  return `"${value.replace(/[\r\n]/g, ' ').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export function formPreamble(
  boundary: string,
  fields: ReadonlyArray<readonly [string, string]>,
  file: MultipartFile,
): Buffer {
  let head = '';
  for (const [name, value] of fields) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`;
  }
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(file.field)}; ` +
    `filename=${quoted(path.basename(file.path))}\r\n` +
    `Content-Type: ${file.contentType ?? APK_TYPE}\r\n\r\n`;
  return Buffer.from(head, 'utf8');
}

export function formEpilogue(boundary: string): Buffer {
  return Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
}

/**
 * Prepares a streamed form. The file's size is taken now; if the file changes size before or
 * while it is sent, the body fails instead of contradicting Content-Length.
 */
export async function streamedForm(
  fields: ReadonlyArray<readonly [string, string]>,
  file: MultipartFile,
): Promise<StreamedForm> {
  const info = await stat(file.path);
  if (!info.isFile()) throw new Error(`${file.path} is not a regular file`);
  const boundary = `----apkrelay${randomBytes(12).toString('hex')}`;
  const parts = {
    path: file.path,
    size: info.size,
    preamble: formPreamble(boundary, fields, file),
    epilogue: formEpilogue(boundary),
  };
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: parts.preamble.length + parts.size + parts.epilogue.length,
    fileSize: parts.size,
    open: (onFileBytes) => formBody(parts, onFileBytes),
  };
}

interface FormParts {
  readonly path: string;
  readonly size: number;
  readonly preamble: Buffer;
  readonly epilogue: Buffer;
}

function formBody(parts: FormParts, onFileBytes?: (n: number) => void): FormBody {
  let stopped = false;
  let wake = (): void => {};
  // A write to a socket destroyed meanwhile never calls back: every wait also ends on stop().
  const stop = new Promise<void>((resolve) => (wake = resolve));
  const flushed = (out: Writable, chunk: Buffer, onFlushed?: () => void): Promise<void> => {
    const written = new Promise<void>((resolve, reject) =>
      out.write(chunk, (err) => {
        if (err) return reject(err);
        onFlushed?.();
        resolve();
      }),
    );
    const settled = Promise.race([written, stop]);
    settled.catch(() => {}); // awaited later; no unhandled rejection meanwhile
    return settled;
  };
  return {
    stop() {
      stopped = true;
      wake();
    },
    async writeTo(out) {
      await flushed(out, parts.preamble);
      const file = await open(parts.path, 'r');
      try {
        const buffers = [Buffer.allocUnsafe(READ_CHUNK), Buffer.allocUnsafe(READ_CHUNK)];
        const inFlight: Array<Promise<void>> = [Promise.resolve(), Promise.resolve()];
        let sent = 0;
        for (let turn = 0; sent < parts.size && !stopped; turn ^= 1) {
          await inFlight[turn]; // this buffer's previous chunk is flushed: it may be refilled
          const want = Math.min(READ_CHUNK, parts.size - sent);
          const { bytesRead } = await file.read(buffers[turn]!, 0, want, sent);
          if (bytesRead === 0 || stopped) break; // the file shrank, or the exchange is over
          sent += bytesRead;
          inFlight[turn] = flushed(out, buffers[turn]!.subarray(0, bytesRead), () =>
            onFileBytes?.(bytesRead),
          );
        }
        await Promise.all(inFlight);
        if (stopped) return;
        if (sent !== parts.size) {
          throw new Error(`${parts.path} changed size while being sent (${sent} of ${parts.size})`);
        }
        await flushed(out, parts.epilogue);
      } finally {
        await file.close();
      }
    },
  };
}
