/**
 * A better-sse `Connection` for Node's HTTP/1 request and response that holds only what a session
 * reads. better-sse's own adapter builds, per stream, a WHATWG `URL`, a Fetch `Request` and
 * `Response` with their `Headers`, kept for the stream's whole life; at 10,000 idle streams that
 * was most of apkrelay's memory beyond the sockets themselves. better-sse documents custom
 * `Connection` subclasses as its extension point; a session reads `request.headers.get`,
 * `request.signal` and `url.searchParams` (for Last-Event-ID and its padding options). The Fetch
 * `Response` is built only if someone asks for it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Connection } from 'better-sse';

export class LightHttp1Connection extends Connection {
  readonly url: URL;
  readonly request: Request;
  private readonly controller = new AbortController();

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly headers: Readonly<Record<string, string>>,
  ) {
    super();
    req.socket.setNoDelay(true);
    const query = req.url?.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
    // Only `searchParams` is read: a URLSearchParams stands in for the URL.
    this.url = { searchParams: new URLSearchParams(query) } as unknown as URL;
    this.request = {
      method: req.method ?? 'GET',
      headers: { get: (name: string) => headerValue(req, name) },
      signal: this.controller.signal,
    } as unknown as Request;
    req.once('close', this.onClose);
    res.once('close', this.onClose);
  }

  get response(): Response {
    return new Response(null, { status: 200, headers: this.head() });
  }

  private head(): Record<string, string> {
    return { ...Connection.constants.RESPONSE_HEADERS, ...this.headers };
  }

  private readonly onClose = () => this.controller.abort();

  sendHead = () => {
    this.res.writeHead(200, this.head());
  };

  sendChunk = (chunk: string) => {
    this.res.write(chunk);
  };

  cleanup = () => {
    this.req.removeListener('close', this.onClose);
    this.res.removeListener('close', this.onClose);
  };
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? null);
}
