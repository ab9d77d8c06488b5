/**
 * A multipart/form-data body streamed from disk: the text fields and the file part's headers
 * (preamble), the file itself through `fs.createReadStream`, then the closing boundary (epilogue).
 * The length is exact and known before the first byte is sent, so the request carries
 * Content-Length and nothing is ever buffered whole.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';

export interface MultipartFile {
  /** The form field name of the file part. */
  readonly field: string;
  readonly path: string;
  readonly contentType?: string;
}

export interface StreamedForm {
  readonly contentType: string;
  /** Total bytes of the body. */
  readonly length: number;
  /** Bytes of the file alone (for progress). */
  readonly fileSize: number;
  /** A fresh body stream; call once per attempt. `onFileBytes` counts file bytes as they flow. */
  open(onFileBytes?: (n: number) => void): Readable;
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
 * while it is sent, the stream fails instead of sending a body that contradicts Content-Length.
 */
export async function streamedForm(
  fields: ReadonlyArray<readonly [string, string]>,
  file: MultipartFile,
): Promise<StreamedForm> {
  const info = await stat(file.path);
  if (!info.isFile()) throw new Error(`${file.path} is not a regular file`);
  const boundary = `----apkrelay${randomBytes(12).toString('hex')}`;
  const preamble = formPreamble(boundary, fields, file);
  const epilogue = formEpilogue(boundary);
  const fileSize = info.size;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: preamble.length + fileSize + epilogue.length,
    fileSize,
    open(onFileBytes) {
      async function* body(): AsyncGenerator<Buffer> {
        yield preamble;
        let sent = 0;
        if (fileSize > 0) {
          // `end` is inclusive: a file that grew is cut at the announced size.
          const reader = createReadStream(file.path, {
            highWaterMark: READ_CHUNK,
            end: fileSize - 1,
          });
          for await (const chunk of reader as AsyncIterable<Buffer>) {
            sent += chunk.length;
            onFileBytes?.(chunk.length);
            yield chunk;
          }
        }
        if (sent !== fileSize) {
          throw new Error(`${file.path} changed size while being sent (${sent} of ${fileSize})`);
        }
        yield epilogue;
      }
      return Readable.from(body(), { objectMode: false });
    },
  };
}
