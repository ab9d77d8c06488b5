/** Multipart forms for upload tests, sent over a real socket (Content-Length or chunked). */
import { randomBytes } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { collectReply, type NetOptions, type Reply } from './http';

export type Part =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly filename: string; readonly data: Buffer };

export function multipartBody(
  parts: readonly Part[],
  boundary = `----apkrelay${randomBytes(8).toString('hex')}`,
) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head =
      'filename' in part
        ? `Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: application/vnd.android.package-archive\r\n`
        : `Content-Disposition: form-data; name="${part.name}"\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n`));
    chunks.push('filename' in part ? part.data : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function postMultipart(
  url: string,
  parts: readonly Part[],
  options: { ca: string; chunked?: boolean; headers?: Record<string, string>; net?: NetOptions },
): Promise<Reply> {
  const { body, contentType } = multipartBody(parts);
  const headers: Record<string, string> = { 'content-type': contentType, ...options.headers };
  if (!options.chunked) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      { method: 'POST', headers, ca: options.ca, agent: false, ...options.net },
      (res) => void collectReply(res).then(resolve, reject),
    );
    req.on('error', reject);
    if (options.chunked) {
      // Several writes without Content-Length: Node sends Transfer-Encoding: chunked.
      for (let i = 0; i < body.length; i += 4096) req.write(body.subarray(i, i + 4096));
      req.end();
    } else {
      req.end(body);
    }
  });
}
