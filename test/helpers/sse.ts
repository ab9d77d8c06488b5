/**
 * A server-sent events client for tests, over a real HTTPS socket: parses the event-stream format
 * (event, data, id, retry fields; comments), sends Last-Event-ID, and records every event.
 */
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import type { NetOptions } from './http';
import { track } from './resources';

export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

export interface SseClient {
  readonly status: Promise<number>;
  readonly events: SseEvent[];
  lastEventId: string | undefined;
  /** The server ended the stream. */
  readonly ended: boolean;
  /** Resolves when the stream ends (server, proxy or `close()`), with the time it did. */
  readonly closed: Promise<number>;
  /** Resolves with the next event of that name (or already received since `from`). */
  next(name: string, timeoutMs?: number, from?: number): Promise<SseEvent>;
  close(): Promise<void>;
}

export function connectSse(
  url: string,
  options: { ca: string; apiKey: string; lastEventId?: string; net?: NetOptions },
): SseClient {
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  let req: ClientRequest | undefined;
  let ended = false;
  // Why a stream ended before an awaited event: its HTTP status and the start of a refusal's
  // body, or the request's error (issue 33: "ended before its status" said neither).
  let why = 'no reply';
  let onClosed: (at: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (onClosed = resolve));
  const client: SseClient = {
    closed,
    get ended() {
      return ended;
    },
    events,
    lastEventId: options.lastEventId,
    status: new Promise((resolve, reject) => {
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        authorization: `Bearer ${options.apiKey}`,
      };
      if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
      req = request(url, { ca: options.ca, headers, agent: false, ...options.net }, (res) => {
        resolve(res.statusCode ?? 0);
        why = `HTTP ${res.statusCode ?? 0}`;
        res.setEncoding('utf8');
        let buffer = '';
        let event = { event: '', data: [] as string[], id: undefined as string | undefined };
        res.on('data', (chunk: string) => {
          if (res.statusCode !== 200 && why.length < 200) why += ` ${chunk.slice(0, 200)}`;
          buffer += chunk;
          let nl: number;
          while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
            if (line === '') {
              if (event.data.length > 0) {
                if (event.id !== undefined) client.lastEventId = event.id;
                events.push({
                  event: event.event || 'message',
                  data: event.data.join('\n'),
                  id: event.id,
                });
                waiters.splice(0).forEach((w) => w());
              }
              event = { event: '', data: [], id: undefined };
              continue;
            }
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event.event = value;
            else if (field === 'data') event.data.push(value);
            else if (field === 'id') event.id = value;
          }
        });
        res.on('error', () => undefined);
        res.on('close', () => {
          ended = true;
          onClosed(Date.now());
          waiters.splice(0).forEach((w) => w());
        });
      });
      req.on('error', (err) => {
        why = `${why}, then ${err.message}`;
        ended = true;
        onClosed(Date.now());
        waiters.splice(0).forEach((w) => w());
        reject(err);
      });
      req.end();
    }),
    async next(name, timeoutMs = 5_000, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.slice(from).find((e) => e.event === name);
        if (found) return found;
        if (ended) throw new Error(`the stream ended before a "${name}" event (${why})`);
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(
            `no "${name}" event within ${timeoutMs} ms (got ${events.map((e) => e.event).join(', ')})`,
          );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: track(`sse ${url}`, async () => {
      req?.destroy();
      await client.status.catch(() => undefined);
    }),
  };
  return client;
}
