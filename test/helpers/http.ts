/** A tiny HTTPS client for tests: real requests over real sockets, trusting the test CA. */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';

/**
 * How to reach the server: the local address to connect from (127.0.0.2… as distinct clients) and
 * a name resolver (host names that only the test knows, such as nginx's server names).
 */
export interface NetOptions {
  readonly localAddress?: string;
  readonly lookup?: LookupFunction;
}

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  json?: unknown;
  ca?: string;
  net?: NetOptions;
}

export function request(url: string, options: RequestOptions = {}): Promise<Reply> {
  const target = new URL(url);
  const headers: Record<string, string> = { ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      { method: options.method ?? 'GET', headers, ca: options.ca, agent: false, ...options.net },
      (res) => void collectReply(res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads a whole response into a Reply. */
export function collectReply(res: IncomingMessage): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const buffer = Buffer.concat(chunks);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: buffer,
        text: buffer.toString('utf8'),
        json: <T>() => JSON.parse(buffer.toString('utf8')) as T,
      });
    });
  });
}
