/**
 * Master key rotation on the real program (issue 24, finding 5; docs/key-rotation.md): the built
 * `apkrelay start` (API and worker processes) on the test Redis and MongoDB-protocol server.
 *
 * Under K1: an account, an APK, a download link, a device with the push key pinned, a backup.
 * Restarted with MASTER_KEY=K2, MASTER_KEY_PREVIOUS=K1: the APK downloads byte-identical, the old
 * API key uploads, the old link serves, the push key is unchanged and an event verifies under the
 * pinned key, the old backup verifies. K2 alone before `keys reseal`: start and reseal refuse,
 * naming K1's id. After `keys reseal` (twice: the second changes nothing), K2 alone: all of it
 * still works, and no stored value names K1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../ops/services/child';
import { verifyEvent } from '../../shared/devices/push-signing';
import { connectMongo, type Mongo } from '../../shared/storage/mongo';
import { request } from '../helpers/http';
import { postMultipart } from '../helpers/multipart';
import { cleanEnv, execFile, mongoUrlFor, waitStarted } from '../helpers/processes';
import { isolation, serviceUrls } from '../helpers/services';
import { connectSse } from '../helpers/sse';
import { fixture } from '../helpers/uploads';

const root = path.resolve(__dirname, '../..');
jest.setTimeout(400_000);

const K1 = randomBytes(32);
const K2 = randomBytes(32);
// The documented key id: the first 8 hex digits of HMAC-SHA256(key, "apkrelay/key-id").
const idOf = (k: Buffer) =>
  createHmac('sha256', k).update('apkrelay/key-id').digest('hex').slice(0, 8);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const SAMPLE = 'dev.apkrelay.sample';

let dataDir: string;
let base: Record<string, string>;
let urls: { admin: string; web: string; push: string };
let mongo: Mongo;
let server: ChildProcess | undefined;
let output = '';
const state = { apiKey: '', link: '', pushKey: '', archive: '' };

const ca = () => readFile(path.join(dataDir, 'tls/self-signed.crt'), 'utf8');
const env = (keys: Record<string, string>) => cleanEnv({ ...base, ...keys });
const withK1 = { MASTER_KEY: K1.toString('base64') };
const rotated = { MASTER_KEY: K2.toString('base64'), MASTER_KEY_PREVIOUS: K1.toString('base64') };
const k2Only = { MASTER_KEY: K2.toString('base64') };

function spawnStart(keys: Record<string, string>): ChildProcess {
  output = '';
  const child = spawn(process.execPath, ['dist/ops/cli/main.js', 'start'], {
    cwd: root,
    env: env(keys),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return child;
}

async function start(keys: Record<string, string>): Promise<void> {
  server = spawnStart(keys);
  await waitStarted(server, urls.admin, ca, () => output, 120_000);
}

/** SIGTERM to the supervisor, which stops its API and worker children before it exits. */
async function stop(): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = once(server, 'exit');
  server.kill('SIGTERM');
  await exited;
}

function cli(args: string[], keys: Record<string, string>) {
  return execFile(process.execPath, ['dist/ops/cli/main.js', ...args], {
    cwd: root,
    env: env(keys),
  });
}

async function cliFails(args: string[], keys: Record<string, string>): Promise<string> {
  try {
    await cli(args, keys);
  } catch (err) {
    const e = err as { stdout: string; stderr: string };
    return e.stdout + e.stderr;
  }
  throw new Error(`expected apkrelay ${args.join(' ')} to fail`);
}

const auth = () => ({ authorization: `Bearer ${state.apiKey}` });

async function upload(file: string): Promise<string> {
  const reply = await postMultipart(
    `${urls.admin}/apps/api_upload`,
    [
      { name: 'apiKey', value: state.apiKey },
      { name: 'current', value: 'true' },
      { name: 'apk', filename: file, data: await fixture(file) },
    ],
    { ca: await ca() },
  );
  return reply.text;
}

/**
 * What must hold on every start after K1: the current APK downloads with the old API key, the
 * old link serves version 1 (uploaded under K1), the push key is the one pinned under K1.
 */
async function oldThingsWork(current: string): Promise<void> {
  const got = await request(
    `${urls.web}/download?package=${SAMPLE}&api_key=${encodeURIComponent(state.apiKey)}`,
    { ca: await ca() },
  );
  expect(got.status).toBe(200);
  expect(sha256(got.body)).toBe(sha256(await fixture(current)));
  const me = await request(`${urls.admin}/api/v2/account`, { headers: auth(), ca: await ca() });
  expect(me.status).toBe(200);
  expect(me.json<{ apiKey: string }>().apiKey).toBe(state.apiKey);
  const viaLink = await request(state.link, { ca: await ca() });
  expect(viaLink.status).toBe(200);
  expect(sha256(viaLink.body)).toBe(sha256(await fixture('version-1.apk')));
  const key = await request(`${urls.push}/api/v2/push-key`, { ca: await ca() });
  expect(key.json<{ publicKey: string }>().publicKey).toBe(state.pushKey);
}

/** The device that pinned the key under K1 receives a version event that verifies under it. */
async function deviceVerifies(deviceId: string): Promise<void> {
  const stream = connectSse(`${urls.push}/api/v2/stream?package=${SAMPLE}&deviceId=${deviceId}`, {
    ca: await ca(),
    apiKey: state.apiKey,
  });
  try {
    expect(await stream.status).toBe(200);
    const event = JSON.parse((await stream.next('version', 20_000)).data) as Record<
      string,
      unknown
    >;
    expect(event).toMatchObject({ package: SAMPLE, versionCode: 2 });
    expect(verifyEvent(state.pushKey, event)).toBe(true);
  } finally {
    await stream.close();
  }
}

beforeAll(async () => {
  const services = serviceUrls();
  const { database, prefix } = isolation();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-rotation-'));
  const [port, webPort, pushPort] = [await freePort(), await freePort(), await freePort()];
  urls = {
    admin: `https://localhost:${port}`,
    web: `https://localhost:${webPort}`,
    push: `https://localhost:${pushPort}`,
  };
  base = {
    REDIS_URL: services.redisUrl,
    MONGO_URL: mongoUrlFor(services.mongoUrl, database),
    QUEUE_PREFIX: prefix,
    DATA_DIR: dataDir,
    PORT: String(port),
    WEB_PORT: String(webPort),
    PUSH_PORT: String(pushPort),
    LOG_LEVEL: 'warn',
  };
  mongo = await connectMongo(services.mongoUrl, database);
});

// A failed test leaves no process behind for the next one (same ports).
afterEach(stop);

afterAll(async () => {
  await mongo?.db.dropDatabase().catch(() => undefined);
  await mongo?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('under K1: account, APK, link, device with the push key pinned, backup', async () => {
  await start(withK1);
  const signup = await request(`${urls.admin}/api/v2/accounts`, {
    method: 'POST',
    json: { email: 'rotation@example.com', password: 'password-123' },
    ca: await ca(),
  });
  expect(signup.status).toBe(201);
  state.apiKey = signup.json<{ apiKey: string }>().apiKey;
  expect(await upload('version-1.apk')).toBe('deploy successful');
  const link = await request(`${urls.admin}/api/v2/apps/${SAMPLE}/download-links`, {
    method: 'POST',
    headers: auth(),
    json: { ttlSeconds: 86_400 },
    ca: await ca(),
  });
  expect(link.status).toBe(201);
  state.link = link.json<{ url: string }>().url;
  const installedMd5 = createHash('md5')
    .update(await fixture('version-1.apk'))
    .digest('hex');
  for (const deviceId of ['kiosk-1', 'kiosk-2']) {
    const reg = await request(`${urls.push}/api/v2/installations`, {
      method: 'POST',
      headers: auth(),
      json: { package: SAMPLE, deviceId, installedMd5 },
      ca: await ca(),
    });
    expect(reg.status).toBe(200);
  }
  const key = await request(`${urls.push}/api/v2/push-key`, { ca: await ca() });
  state.pushKey = key.json<{ publicKey: string }>().publicKey;
  expect(state.pushKey).toMatch(/^[A-Za-z0-9+/]{40,}={0,2}$/);
  await oldThingsWork('version-1.apk');
  const { stdout } = await cli(['backup', 'run', '--json'], withK1);
  state.archive = (JSON.parse(stdout.trim()) as { path: string }).path;
  await stop();
});

test('K2 with K1 as previous: old APK, API key, link, push key and backup all work', async () => {
  await start(rotated);
  await oldThingsWork('version-1.apk');
  // The old API key uploads; the device that pinned the key under K1 verifies the notice.
  expect(await upload('version-2.apk')).toBe('deploy successful');
  await deviceVerifies('kiosk-1');
  const { stdout } = await cli(['backup', 'verify', state.archive, '--json'], rotated);
  expect(JSON.parse(stdout.trim())).toMatchObject({ ok: true });
  await stop();
});

test('K2 alone before reseal: start and reseal refuse, naming the key they need', async () => {
  server = spawnStart(k2Only);
  const [code] = (await once(server, 'exit')) as [number | null];
  expect(code).not.toBe(0);
  expect(output).toContain(idOf(K1));
  expect(output).toContain('MASTER_KEY_PREVIOUS');
  const refused = await cliFails(['keys', 'reseal'], k2Only);
  expect(refused).toContain(idOf(K1));
  expect(refused).toContain('MASTER_KEY_PREVIOUS');
});

test('keys reseal moves every stored value to K2; a second run changes nothing', async () => {
  const first = JSON.parse((await cli(['keys', 'reseal', '--json'], rotated)).stdout.trim()) as {
    keyId: string;
    resealed: Record<string, number>;
  };
  expect(first.keyId).toBe(idOf(K2));
  // Version 2 was uploaded under K2 already: only version 1's data key moves.
  expect(first.resealed).toEqual({
    accounts: 1,
    access_keys: 0,
    apks: 1,
    pinned_keys: 2,
    webhook_endpoints: 0,
    totp_factors: 0,
  });
  const again = JSON.parse((await cli(['keys', 'reseal', '--json'], rotated)).stdout.trim()) as {
    resealed: Record<string, number>;
  };
  expect(again.resealed).toEqual({
    accounts: 0,
    access_keys: 0,
    apks: 0,
    pinned_keys: 0,
    webhook_endpoints: 0,
    totp_factors: 0,
  });
  const values = async (collection: string, field: string) =>
    (await mongo.db.collection(collection).find().toArray()).map((d) => String(d[field]));
  const sealed = [
    ...(await values('accounts', 'apiKeySealed')),
    ...(await values('apks', 'wrappedKey')),
    ...(await values('pinned_keys', 'sealed')),
  ];
  expect(sealed).toHaveLength(5);
  for (const value of sealed) expect(value.startsWith(`v2.${idOf(K2)}.`)).toBe(true);
});

test('after reseal, K2 alone: everything still works', async () => {
  await start(k2Only);
  await oldThingsWork('version-2.apk');
  await deviceVerifies('kiosk-2');
  expect(await upload('version-3.apk')).toBe('deploy successful');
  await stop();
});
