import { spawn } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';
import { once } from 'node:events';
import { describeHandle } from '../../../helpers/exit-watchdog';

describe('describeHandle names what keeps a process alive', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer((s) => s.end());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('a listening server by its address', () => {
    const { port } = server.address() as { port: number };
    expect(describeHandle(server)).toBe(
      `Server listening on {"address":"127.0.0.1","family":"IPv4","port":${port}}`,
    );
  });

  test('a socket by both ends', async () => {
    const { port } = server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    expect(describeHandle(socket)).toBe(
      `Socket 127.0.0.1:${socket.localPort} -> 127.0.0.1:${port}`,
    );
    socket.destroy();
    expect(describeHandle(socket)).toMatch(/\(destroyed\)$/);
  });

  test('a child process by pid and command line', async () => {
    const child = spawn('sleep', ['5']);
    try {
      expect(describeHandle(child)).toBe(`ChildProcess pid ${child.pid}: sleep 5`);
    } finally {
      child.kill();
      await once(child, 'exit');
    }
  });

  test('anything else by its kind, never by throwing', () => {
    expect(describeHandle(new Map())).toBe('Map');
    expect(describeHandle(Object.create(null))).toBe('object');
    expect(describeHandle(undefined)).toBe('undefined');
  });
});
