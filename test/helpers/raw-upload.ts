/**
 * Upload forms written by hand on a raw TLS socket, for tests of what the server does while a
 * body is still arriving: a 50 MB file behind a wrong key, a body trickled a byte at a time, an
 * upload held open half-way. Writing stops once the server has answered or closed the socket.
 */
import { openRaw, type RawConnection, type RawResponse } from '../resilience/protocol/raw-http';

export const BOUNDARY = 'RaWuPlOaDbOuNdArY';

export const formField = (name: string, value: string): Buffer =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );

/** The headers of the apk file part (its bytes follow, then `fileEnd`). */
export const fileHead = (filename = 'app.apk'): Buffer =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="apk"; filename="${filename}"\r\n` +
      'Content-Type: application/vnd.android.package-archive\r\n\r\n',
  );

export const fileEnd = Buffer.from('\r\n');

/** One chunk of a `Transfer-Encoding: chunked` body (the last is `0\r\n\r\n`). */
export const chunk = (bytes: Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
export const formEnd = Buffer.from(`--${BOUNDARY}--\r\n`);

export function requestHead(
  path: string,
  contentLength: number,
  headers: Record<string, string> = {},
): Buffer {
  const lines = [
    `POST ${path} HTTP/1.1`,
    'Host: localhost',
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
    `Content-Length: ${contentLength}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
}

export interface SentForm {
  readonly connection: RawConnection;
  /** Body bytes written before the server answered or closed. */
  readonly sent: number;
  readonly response: RawResponse & { readonly end: number };
}

/**
 * Sends `before`, then `fileBytes` bytes of filler as the apk part's content, then `after`, as one
 * request with an exact Content-Length; stops writing as soon as a response or a close arrives.
 */
export async function sendForm(
  url: string,
  ca: string,
  parts: {
    path?: string;
    headers?: Record<string, string>;
    before: Buffer;
    fileBytes: number;
    after: Buffer;
  },
): Promise<SentForm> {
  const connection = await openRaw(url, ca);
  const length = parts.before.length + parts.fileBytes + parts.after.length;
  let answered = false;
  const response = connection.response(120_000);
  void response.then(
    () => (answered = true),
    () => (answered = true),
  );
  const stopped = () => answered || connection.isClosed();
  let sent = 0;
  const write = async (bytes: Buffer) => {
    if (stopped()) return;
    if (await connection.write(bytes)) sent += bytes.length;
  };
  await connection.write(requestHead(parts.path ?? '/apps/api_upload', length, parts.headers));
  await write(parts.before);
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  for (let left = parts.fileBytes; left > 0 && !stopped(); left -= chunk.length) {
    await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
  }
  await write(parts.after);
  return { connection, sent, response: await response };
}
