/**
 * Plain-text replies for the legacy (PushLink-compatible) endpoints: explicit Content-Type with
 * charset and explicit Content-Length, never chunked or compressed.
 */
import type { Response } from 'express';

export function sendText(res: Response, status: number, text: string): void {
  const body = Buffer.from(text, 'utf8');
  res.status(status);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}
