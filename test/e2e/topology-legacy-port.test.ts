/**
 * The legacy push port's nginx block (ops/deploy/nginx/apkrelay-stream.conf.in): TLS terminated by
 * nginx with the hosts' certificate, plain TCP to the API processes (their legacy listener speaks
 * plain TCP with TLS=off). Two plain line servers stand in for the two API processes' listeners:
 * a client trusting the hosts' certificate talks through nginx's stream port, sockets are spread
 * over both, and when one backend is gone every new socket reaches the other. The real listeners
 * behind the block: test/e2e/topology.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { freePort } from '../../ops/services/child';
import { selfSignedCertificate } from '../../shared/crypto/tls';
import {
  deployVars,
  ensureNginx,
  SERVER_NAMES,
  startNginx,
  type RunningNginx,
} from '../helpers/nginx';
import { startLineServer, type LineServer } from '../helpers/line-server';
import { holdPort } from '../helpers/held-port';

let dir: string;
let nginx: RunningNginx;
let listen: { https: number; legacy: number };
let backends: LineServer[];
const tls = selfSignedCertificate(Object.values(SERVER_NAMES), new Date());

beforeAll(async () => {
  await ensureNginx();
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-nginx-'));
  const held = [await holdPort(), await holdPort()] as const;
  listen = { https: held[0].port, legacy: held[1].port };
  backends = [await startLineServer('a'), await startLineServer('b')];
  const nowhere = { admin: await freePort(), web: await freePort(), push: await freePort() };
  const vars = deployVars(
    dir,
    listen,
    tls,
    [nowhere, nowhere],
    [backends[0]!.port, backends[1]!.port],
  );
  nginx = await startNginx(dir, vars, held);
});

afterAll(async () => {
  await nginx?.stop();
  for (const backend of backends ?? []) await backend.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the legacy push port: nginx terminates TLS and spreads plain sockets over the API processes', async () => {
  const line = (n: number) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({
        host: '127.0.0.1',
        port: listen.legacy,
        ca: tls.cert, // nginx's certificate: it terminates TLS here
        servername: SERVER_NAMES.push,
      });
      socket.setEncoding('utf8');
      let got = '';
      socket.on('data', (c: string) => {
        got += c;
        if (got.endsWith('\n')) {
          socket.destroy();
          resolve(got.trim());
        }
      });
      socket.on('error', reject);
      socket.write(`{"hello":${n}}\n`);
    });
  const [one, two] = [await line(1), await line(2)];
  expect([one.slice(1), two.slice(1)]).toEqual([' {"hello":1}', ' {"hello":2}']);
  expect([one[0], two[0]].sort()).toEqual(['a', 'b']);
  await backends[0]!.close();
  expect([await line(3), await line(4)]).toEqual(['b {"hello":3}', 'b {"hello":4}']);
});
