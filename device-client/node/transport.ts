/** The HTTP(S) port on Node: keep-alive agents, a `ca` to trust, or `insecure` to trust anything. */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { HttpReply, HttpRequest, OpenResponse, Transport } from '../core/ports';

export interface NodeTransportOptions {
  /** PEM certificate(s) to trust, e.g. a server's self-signed certificate. */
  readonly ca?: string;
  /** Do not verify the server's certificate (tests, labs). */
  readonly insecure?: boolean;
  /** Longest wait for a reply's headers, and for a `request` body (ms). */
  readonly timeoutMs?: number;
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export function nodeTransport(options: NodeTransportOptions = {}): Transport & { destroy(): void } {
  const https = new HttpsAgent({
    keepAlive: true,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    rejectUnauthorized: !options.insecure,
  });
  const http = new HttpAgent({ keepAlive: true });
  const timeoutMs = options.timeoutMs ?? 30_000;

  function send(req: HttpRequest): Promise<IncomingMessage> {
    const url = new URL(req.url);
    const secure = url.protocol === 'https:';
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    return new Promise((resolve, reject) => {
      const r = (secure ? httpsRequest : httpRequest)(
        url,
        { method: req.method, headers, agent: secure ? https : http },
        (res) => {
          r.setTimeout(0);
          resolve(res);
        },
      );
      r.setTimeout(timeoutMs, () => r.destroy(new Error(`no reply within ${timeoutMs} ms`)));
      r.on('error', reject);
      r.end(req.body);
    });
  }

  return {
    async request(req: HttpRequest): Promise<HttpReply> {
      const res = await send(req);
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => res.destroy(new Error('reply body timed out')), timeoutMs);
      timer.unref();
      try {
        for await (const chunk of res) chunks.push(chunk as Buffer);
      } finally {
        clearTimeout(timer);
      }
      return {
        status: res.statusCode ?? 0,
        headers: headersOf(res),
        text: Buffer.concat(chunks).toString('utf8'),
      };
    },
    async open(req: HttpRequest): Promise<OpenResponse> {
      const res = await send(req);
      return {
        status: res.statusCode ?? 0,
        headers: headersOf(res),
        body: res as AsyncIterable<Uint8Array>,
        close: () => res.destroy(),
      };
    },
    destroy() {
      https.destroy();
      http.destroy();
    },
  };
}
