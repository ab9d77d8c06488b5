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
  private readonly signal = new CloseSignal();

  /** `query`: the request's parsed query string, when the caller has it already. */
  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly headers: Readonly<Record<string, string>>,
    query: URLSearchParams = parseQuery(req.url ?? ''),
  ) {
    super();
    req.socket.setNoDelay(true);
    // Only `searchParams` is read: the query stands in for the URL.
    this.url = { searchParams: query } as unknown as URL;
    this.request = {
      method: req.method ?? 'GET',
      headers: { get: (name: string) => headerValue(req, name) },
      signal: this.signal,
    } as unknown as Request;
    // Plain listeners (no once-wrappers): cleanup() removes them, and the signal fires once.
    req.on('close', this.onClose);
    res.on('close', this.onClose);
  }

  get response(): Response {
    return new Response(null, { status: 200, headers: this.head() });
  }

  private head(): Record<string, string> {
    return { ...Connection.constants.RESPONSE_HEADERS, ...this.headers };
  }

  private readonly onClose = () => this.signal.abort();

  // Methods, not per-instance arrow functions: a session calls them on the connection.
  sendHead(): void {
    this.res.writeHead(200, this.head());
  }

  sendChunk(chunk: string): void {
    this.res.write(chunk);
  }

  cleanup(): void {
    this.req.removeListener('close', this.onClose);
    this.res.removeListener('close', this.onClose);
  }
}

/**
 * What a session reads of `request.signal`: one "abort" listener, added at start and removed when
 * it fires. A real AbortSignal is an EventTarget with its own listener maps, several hundred bytes
 * per stream for this one callback.
 */
class CloseSignal {
  aborted = false;
  private listener: (() => void) | null = null;

  addEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.listener = listener;
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type === 'abort' && this.listener === listener) this.listener = null;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = null;
    listener?.();
  }
}

export function parseQuery(url: string): URLSearchParams {
  const start = url.indexOf('?');
  return new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? null);
}
