/**
 * For a request refused before its body was read to the end (too large, malformed, flooded):
 * the rest is discarded, not parsed, and the connection is closed once the reply is out
 * (`Connection: close`), so an endless or huge body cannot keep the socket, or the process,
 * busy after the refusal. The reply goes out first: the client reads it before the close.
 *
 * The close lingers (nginx's "lingering close"): after the reply the server ends its side but keeps
 * reading and dropping what the client still sends, for at most LINGER_MS. Closing outright while
 * the client is still writing its body makes the kernel answer the next bytes with a reset, and a
 * reset discards the reply the client had not read yet: an upload tool with a wrong key then
 * reports "write EPIPE" instead of "Invalid API Key". The bound keeps an endless body from holding
 * the socket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The longest a refused request's connection stays open after its reply, reading and dropping. */
export const LINGER_MS = 2_000;

/**
 * Makes the server's close of this connection (Node calls `destroySoon` after a reply with
 * `Connection: close`) end the writing side only, destroying the socket when the client closes or
 * after LINGER_MS.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.resume();
  };
}

export function closeAfterReply(req: IncomingMessage & { res?: ServerResponse }): void {
  req.unpipe();
  req.resume();
  const res = req.res;
  if (res && !res.headersSent) {
    res.setHeader('Connection', 'close');
    lingerOnClose(req.socket);
  } else if (res) {
    res.once('finish', () => {
      lingerOnClose(req.socket);
      req.socket.destroySoon();
    });
  }
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
    if (!req.complete && hasBody(req) && !res.headersSent) {
      res.setHeader('Connection', 'close');
      lingerOnClose(req.socket);
    }
    return writeHead(...args);
  };
  next();
}
