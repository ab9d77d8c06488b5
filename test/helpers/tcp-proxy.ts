/**
 * A TCP proxy in front of a real service, to cut the network at a chosen moment: when a chunk a
 * client sends matches a trigger, every connection is dropped (that chunk never arrives) and the
 * proxy stops listening for a while (connections refused), as when the service restarts just then.
 * It can also slow the service down on cue: what clients send is held for a while (a loaded
 * server), in order.
 */
import { createServer, connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { track } from './resources';

export interface TcpProxy {
  readonly port: number;
  /** Cuts everything when `matches` says so for a chunk sent by a client; once. */
  cutWhen(matches: (chunk: Buffer) => boolean, refuseMs: number): void;
  /** Cuts everything now (and forgets the trigger). */
  cutNow(refuseMs: number): void;
  /** From now on, holds each chunk a client sends for `ms` (0: passes it at once again). */
  delay(ms: number): void;
  /** How many times the network was cut. */
  readonly cuts: number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let trigger: { matches: (chunk: Buffer) => boolean; refuseMs: number } | undefined;
  let refuseUntil = 0;
  let cuts = 0;
  let delayMs = 0;
  let port = 0;
  let closed = false;
  // Ends the waits of held chunks at close, so a long hold leaves no timer behind.
  const closing = new AbortController();
  const cutAll = (refuseMs: number) => {
    cuts += 1;
    refuseUntil = Date.now() + refuseMs;
    // Not listening meanwhile: reconnections are refused (ECONNREFUSED), as with a stopped server.
    server.close();
    for (const s of sockets) s.destroy();
    sockets.clear();
    setTimeout(() => {
      if (!closed) server.listen(port, '127.0.0.1');
    }, refuseMs).unref();
  };
  const server = createServer((client) => {
    if (Date.now() < refuseUntil) {
      client.destroy();
      return;
    }
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    let held = Promise.resolve();
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      if (trigger?.matches(chunk)) {
        const { refuseMs } = trigger;
        trigger = undefined;
        cutAll(refuseMs);
        return;
      }
      // Each chunk is due `delayMs` after it came, and written after the chunks before it.
      const due = Date.now() + delayMs;
      held = held
        .then(async () => {
          if (due > Date.now())
            await sleep(due - Date.now(), undefined, { signal: closing.signal });
          if (!upstream.destroyed) upstream.write(chunk);
        })
        .catch(() => undefined);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    for (const s of [client, upstream]) {
      s.on('error', drop);
      s.on('close', drop);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('proxy has no port');
  port = address.port;
  return {
    port,
    cutWhen(matches, refuseMs) {
      trigger = { matches, refuseMs };
    },
    delay(ms) {
      delayMs = ms;
    },
    cutNow(refuseMs) {
      trigger = undefined;
      cutAll(refuseMs);
    },
    get cuts() {
      return cuts;
    },
    close: track('tcp proxy', async () => {
      closed = true;
      closing.abort();
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  };
}
