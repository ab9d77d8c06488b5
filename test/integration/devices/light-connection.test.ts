/**
 * The push host's better-sse connection adapter over a real HTTP socket: the response head, the
 * client's Last-Event-ID, events, and the session noticing the client leaving.
 */
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSession, type Session } from 'better-sse';
import { LightHttp1Connection } from '../../../api/push/light-connection';
import { eventually } from '../../helpers/eventually';

let server: Server;
let sessions: Session[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const connection = new LightHttp1Connection(req, res, { 'X-Accel-Buffering': 'no' });
    void createSession(connection, { retry: 2_500, keepAlive: null }).then((session) => {
      sessions.push(session);
      session.push({ lastId: session.lastId }, 'hello', '7-0');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

test('head, Last-Event-ID, events and disconnect', async () => {
  sessions = [];
  const { port } = server.address() as AddressInfo;
  const req = request({
    host: '127.0.0.1',
    port,
    path: '/api/v2/stream?package=p&deviceId=d',
    headers: { 'Last-Event-ID': '5-0' },
  });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/event-stream');
  expect(res.headers['x-accel-buffering']).toBe('no');
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (body += chunk));
  await eventually('the hello event', () => body.includes('event:hello'), { intervalMs: 20 });
  expect(body).toContain('retry:2500');
  expect(body).toContain('data:{"lastId":"5-0"}');
  expect(body).toContain('id:7-0');

  const session = sessions[0]!;
  expect(session.isConnected).toBe(true);
  const gone = once(session, 'disconnected');
  req.destroy();
  await gone;
  expect(session.isConnected).toBe(false);
});
