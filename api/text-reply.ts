/**
 * Plain-text replies for the legacy (PushLink-compatible) endpoints: explicit Content-Type with
 * charset and explicit Content-Length, never chunked or compressed.
 */
import type { ServerResponse } from 'node:http';

export function sendText(res: ServerResponse, status: number, text: string): void {
  const body = Buffer.from(text, 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}
