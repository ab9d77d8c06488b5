/**
 * A plain TCP server speaking newline-delimited lines, standing in for a push listener behind a
 * TLS-terminating proxy: it answers each line `<name> <line>`, so a client sees which backend it
 * reached and that the proxy passed the bytes through untouched. Closed with the test's resources.
 */
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { track } from './resources';

export interface LineServer {
  readonly name: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startLineServer(name: string): Promise<LineServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        socket.write(`${name} ${buffer.slice(0, nl)}\n`);
        buffer = buffer.slice(nl + 1);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const close = track(`line server ${name}`, async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { name, port: address.port, close };
}
