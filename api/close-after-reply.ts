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
