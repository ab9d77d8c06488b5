/**
 * Killing one API process (SIGKILL): the devices whose streams it held reconnect to another API
 * process and lose nothing — the version notice issued meanwhile reaches them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../ops/services/child';
import { newAccount } from '../helpers/accounts';
import { eventually } from '../helpers/eventually';
import { request } from '../helpers/http';
import { stackEnv } from '../helpers/processes';
import { connectSse, type SseClient } from '../helpers/sse';
import { startStack, testTls, type TestStack } from '../helpers/stack';
import { uploadFixture } from '../helpers/uploads';

const root = path.resolve(__dirname, '../..');
jest.setTimeout(120_000);
let stack: TestStack;
let api: ChildProcess | undefined;
const clients: SseClient[] = [];

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  if (api && api.exitCode === null && api.signalCode === null) {
    api.kill('SIGKILL');
    await once(api, 'exit');
  }
  await stack.close();
});

async function spawnApi(): Promise<{ push: string; admin: string }> {
  const tls = testTls();
  const cert = path.join(stack.dataDir, 'b.crt');
  const key = path.join(stack.dataDir, 'b.key');
  await writeFile(cert, tls.cert);
  await writeFile(key, tls.key);
  const [port, webPort, pushPort] = [await freePort(), await freePort(), await freePort()];
  api = spawn('node', ['dist/ops/cli/main.js', 'start', '--only', 'api'], {
    cwd: root,
    env: stackEnv(stack, {
      TLS_CERT: cert,
      TLS_KEY: key,
      PORT: String(port),
      WEB_PORT: String(webPort),
      PUSH_PORT: String(pushPort),
      PUBLIC_WEB_URL: stack.urls.web,
    }),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const admin = `https://localhost:${port}`;
  await eventually(
    'the second API process to answer /healthz',
    () =>
      request(`${admin}/healthz`, { ca: stack.ca }).then(
        (r) => r.status === 200,
        () => false,
      ),
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  return { push: `https://localhost:${pushPort}`, admin };
}

test('SIGKILL of the API process holding the streams: devices reconnect elsewhere and get the new version', async () => {
  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const v1 = await stack.mongo.db.collection('apks').findOne({ accountId: id, versionCode: 1 });
  const b = await spawnApi();
  const devices = ['k1', 'k2', 'k3'];
  for (const deviceId of devices) {
    const reply = await request(`${stack.urls.push}/api/v2/installations`, {
      method: 'POST',
      json: { package: 'dev.apkrelay.sample', deviceId, installedMd5: v1!.md5 as string },
      headers: { authorization: `Bearer ${apiKey}` },
      ca: stack.ca,
    });
    expect(reply.json()).toMatchObject({ status: 'enabled' });
  }
  const url = (host: string, deviceId: string) =>
    `${host}/api/v2/stream?package=dev.apkrelay.sample&deviceId=${deviceId}`;
  const onB = devices.map((d) => connectSse(url(b.push, d), { ca: stack.ca, apiKey }));
  clients.push(...onB);
  await Promise.all(onB.map((s) => s.next('status')));

  api!.kill('SIGKILL');
  await once(api!, 'exit');
  await uploadFixture(stack, apiKey, 'version-2.apk');

  const onA = devices.map((d, i) =>
    connectSse(url(stack.urls.push, d), {
      ca: stack.ca,
      apiKey,
      lastEventId: onB[i]!.lastEventId!,
    }),
  );
  clients.push(...onA);
  const v2 = await stack.mongo.db.collection('apks').findOne({ accountId: id, versionCode: 2 });
  for (const s of onA) {
    const event = JSON.parse((await s.next('version', 5_000)).data) as Record<string, unknown>;
    expect(event).toMatchObject({
      package: 'dev.apkrelay.sample',
      versionCode: 2,
      md5: v2!.md5 as string,
    });
  }
});
