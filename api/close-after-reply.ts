/**
 * For a request refused before its body was read to the end (too large, malformed, flooded):
 * the rest is discarded, not parsed, and the connection is closed once the reply is out
 * (`Connection: close`), so an endless or huge body cannot keep the socket, or the process,
 * busy after the refusal. The reply goes out first: the client reads it before the close.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function closeAfterReply(req: IncomingMessage & { res?: ServerResponse }): void {
  req.unpipe();
  req.resume();
  const res = req.res;
  if (res && !res.headersSent) res.setHeader('Connection', 'close');
  else if (res) res.once('finish', () => req.socket.destroy());
}

function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
  );
}

/**
 * Middleware: a reply that goes out before the request's body was read (an authentication
 * refusal, a 404, an error before the parser) closes the connection. Otherwise Node reads and
 * discards the whole body to keep the connection: a 1 GiB upload with a wrong key, or an endless
 * chunked body, would be read to its end.
 */
export function closeUnreadBodies(
  req: IncomingMessage,
  res: ServerResponse,
  next: () => void,
): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = (...args: unknown[]) => {
    if (!req.complete && hasBody(req) && !res.headersSent) res.setHeader('Connection', 'close');
    return writeHead(...args);
  };
  next();
}
