/**
 * Must-hold 2 with real OS processes on both sides: two API processes of the BUILT program
 * (`node dist/ops/cli/main.js start --only api`, built by `pretest`) on one Redis, MongoDB
 * database and queue prefix, and 4 client processes sending 40 distinct reports of one free-plan
 * app at once → exactly 10 `Exception sent.`, 30 limit texts, and exactly 10 reports in MongoDB.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { freePort } from '../../ops/services/child';
import { newAccount } from '../helpers/accounts';
import { deviceIds, registerDevices } from '../helpers/devices';
import { eventually } from '../helpers/eventually';
import { request } from '../helpers/http';
import { stackEnv } from '../helpers/processes';
import { startStack, type TestStack } from '../helpers/stack';
import {
  expectTenOfForty,
  encodeForm,
  seedApp,
  stackTrace,
} from '../integration/exceptions/fixtures';

const root = path.resolve(__dirname, '../..');
let stack: TestStack;
const children: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startStack(); // workers + (unused here) an in-process API
});
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
  await stack.close();
});

async function spawnApi(): Promise<string> {
  const [port, webPort, pushPort] = [await freePort(), await freePort(), await freePort()];
  const api = spawn('node', ['dist/ops/cli/main.js', 'start', '--only', 'api'], {
    cwd: root,
    env: stackEnv(stack, {
      TLS: 'off',
      HOST: '127.0.0.1',
      PORT: String(port),
      WEB_PORT: String(webPort),
      PUSH_PORT: String(pushPort),
    }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(api);
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    'an API process to answer /healthz',
    () =>
      request(`${url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      ),
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return url;
}

function message<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    child.on('message', (m: { type: string; message?: string }) => {
      if (m.type === type) resolve(m as T);
      else if (m.type === 'error') reject(new Error(m.message));
    });
    // 'close', not 'exit': a message sent just before exiting may be read after 'exit' (the
    // sender disconnects right after 'done'); 'close' waits for the IPC channel to be drained.
    child.once('close', (code) => reject(new Error(`sender exited (${code}) before '${type}'`)));
  });
}

test('2 API processes, 4 client processes, 40 distinct reports: exactly 10 registered and stored', async () => {
  const urls = [await spawnApi(), await spawnApi()];
  const account = await newAccount(stack);
  const app = await seedApp(stack, account.id, { label: 'Two Process App' });
  const devices = deviceIds('device-', 5);
  await registerDevices(
    { baseUrl: urls[0]!, ca: stack.ca, apiKey: account.apiKey, ...app },
    devices,
  );
  const bodies = Array.from({ length: 40 }, (_, i) =>
    encodeForm({
      package: app.package,
      api_key: account.apiKey,
      hash: app.md5,
      deviceId: devices[i % 5]!,
      st: stackTrace(`two processes ${i}`, i + 1),
    }),
  );
  const senders = Array.from({ length: 4 }, () => {
    const child = fork(path.join(root, 'test/integration/exceptions/sender.js'), [], {
      stdio: 'ignore',
    });
    children.push(child);
    return child;
  });
  await Promise.all(
    senders.map((child, k) => {
      const ready = message(child, 'ready');
      child.send({
        type: 'job',
        urls: k % 2 === 0 ? urls : [...urls].reverse(),
        bodies: bodies.slice(k * 10, k * 10 + 10),
      });
      return ready;
    }),
  );
  const done = senders.map((c) =>
    message<{ replies: Array<{ status: number; text: string }> }>(c, 'done'),
  );
  senders.forEach((c) => c.send({ type: 'go' }));
  const replies = (await Promise.all(done)).flatMap((d) => d.replies);
  await expectTenOfForty(stack, account.id, 'Two Process App', replies);
});
