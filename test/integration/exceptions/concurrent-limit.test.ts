/**
 * The limit is exact across processes: 40 distinct reports sent at once from 4 client processes
 * to 2 API processes (same Redis and Mongo) for one free-plan app → exactly 10 registered, 30 get
 * the limit text, and Mongo holds exactly 10 reports.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { newAccount } from '../../helpers/accounts';
import { deviceIds, registerDevices } from '../../helpers/devices';
import { startStack, type TestStack } from '../../helpers/stack';
import { encodeForm, expectTenOfForty, seedApp, stackTrace } from './fixtures';

interface SenderReply {
  status: number;
  text: string;
}

let stack: TestStack;
let secondApi: { urls: TestStack['urls'] };
beforeAll(async () => {
  stack = await startStack();
  secondApi = await stack.startApi();
});
afterAll(() => stack.close());

function message<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string; message?: string }) => {
      if (m.type === type) {
        child.off('message', onMessage);
        resolve(m as T);
      } else if (m.type === 'error') reject(new Error(m.message));
    };
    child.on('message', onMessage);
    // 'close', not 'exit': a message sent just before exiting may be read after 'exit' (the
    // sender disconnects right after 'done'); 'close' waits for the IPC channel to be drained.
    child.once('close', (code) => reject(new Error(`sender exited (${code}) before '${type}'`)));
  });
}

test('40 distinct reports from 4 processes to 2 API processes: exactly 10 registered, 30 limited, 10 stored', async () => {
  const account = await newAccount(stack); // free plan: 10 per 24 h
  const app = await seedApp(stack, account.id, { label: 'Concurrent App' });
  const devices = deviceIds('device-', 5); // the plan's 5 installations, all enabled
  const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app };
  expect(await registerDevices(target, devices)).toEqual(Array(5).fill('enabled'));
  const bodies = Array.from({ length: 40 }, (_, i) =>
    encodeForm({
      package: app.package,
      api_key: account.apiKey,
      hash: app.md5,
      deviceId: devices[i % 5]!,
      st: stackTrace(`concurrent ${i}`, i + 1),
      lc: [`line ${i}`],
    }),
  );
  const urls = [stack.urls.admin, secondApi.urls.admin];
  const senders = Array.from({ length: 4 }, () =>
    fork(path.join(__dirname, 'sender.js'), [], { stdio: 'ignore' }),
  );
  try {
    await Promise.all(
      senders.map((child, k) => {
        const ready = message(child, 'ready');
        child.send({
          type: 'job',
          ca: stack.ca,
          // each process talks to both APIs, starting with a different one
          urls: k % 2 === 0 ? urls : [...urls].reverse(),
          bodies: bodies.slice(k * 10, k * 10 + 10),
        });
        return ready;
      }),
    );
    const done = senders.map((child) => message<{ replies: SenderReply[] }>(child, 'done'));
    senders.forEach((child) => child.send({ type: 'go' }));
    const replies = (await Promise.all(done)).flatMap((d) => d.replies);
    await expectTenOfForty(stack, account.id, 'Concurrent App', replies);
  } finally {
    await Promise.all(
      senders.map(async (child) => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = once(child, 'exit');
          child.kill();
          await exited;
        }
      }),
    );
  }
});
