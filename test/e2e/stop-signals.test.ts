/**
 * `npm start` stopped the ways users and service managers stop it: Ctrl-C in a terminal (SIGINT to
 * the whole process group, which npm forwards once more), `kill -TERM -- -<pgid>` and systemd's
 * default (SIGTERM to every process at once), and SIGTERM to the supervisor alone. Each time every
 * process is gone, none had to be killed at SHUTDOWN_TIMEOUT_MS (the supervisor says so when it
 * must), nothing mentioning the DATA_DIR is left, the log never says "forcing exit", and an
 * upload in flight at the signal is answered (accepted,
 * queued or a retryable 503) and, once acknowledged, is in the store after the next start. A
 * deliberate second signal past the grace still forces exit at once, services included.
 *
 * The four starts share one DATA_DIR, so each start also checks what the previous stop left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FORCE_GRACE_MS } from '../../ops/process/shutdown';
import { eventually, eventuallyValue } from '../helpers/eventually';
import { collectReply, request, type Reply } from '../helpers/http';
import { multipartBody } from '../helpers/multipart';
import {
  alive,
  childrenRunning,
  freshInstall,
  descendants,
  processesMentioning,
} from '../helpers/processes';
import { fixture } from '../helpers/uploads';

const root = path.resolve(__dirname, '../..');
const SHUTDOWN_TIMEOUT_MS = 10_000;
const PACKAGE = 'dev.apkrelay.sample';
jest.setTimeout(300_000);

let dataDir: string;
let env: NodeJS.ProcessEnv;
let adminUrl: string;
let apiKey: string;
const ca = () => readFile(path.join(dataDir, 'tls/self-signed.crt'), 'utf8');

interface Running {
  readonly npm: ChildProcess;
  /** `node dist/ops/cli/main.js start`, which npm runs. */
  supervisorPid: number;
  output: string;
}

/**
 * `npm start` as a terminal runs it: its own process group, led by npm. dist/ is built by the
 * test run already, so `--ignore-scripts` skips only the prestart build.
 */
async function start(): Promise<Running> {
  const npm = spawn('npm', ['start', '--ignore-scripts'], {
    cwd: root,
    env,
    detached: true,
    stdio: 'pipe',
  });
  const running: Running = { npm, supervisorPid: 0, output: '' };
  npm.stdout.on('data', (d: Buffer) => (running.output += d.toString()));
  npm.stderr.on('data', (d: Buffer) => (running.output += d.toString()));
  await eventually(
    'npm start to print "apkrelay is running:"',
    () => {
      if (npm.exitCode !== null) throw new Error(`npm start exited early:\n${running.output}`);
      return running.output.includes('apkrelay is running:');
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  const [supervisor] = await childrenRunning(npm.pid!, 'main.js start');
  running.supervisorPid = supervisor!;
  return running;
}

/** Signals a process group that may be gone already. */
function signalGroup(leader: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-leader, signal);
  } catch {
    // gone: the graceful stop finished first (the test then fails on "forcing exit")
  }
}

/** Every pid of the tree (npm, supervisor, api, workers, redis-server, the Mongo server). */
async function treeOf(running: Running): Promise<number[]> {
  const state = JSON.parse(await readFile(path.join(dataDir, 'run/services.json'), 'utf8')) as {
    redis: { pid: number };
    mongo: { pid: number };
  };
  const tree = await descendants(running.npm.pid!);
  expect(tree).toEqual(expect.arrayContaining([state.redis.pid, state.mongo.pid]));
  return [running.npm.pid!, ...tree];
}

/** Sends the signal(s), then waits for every pid of the tree to be gone. */
async function stopAndWait(pids: number[], send: () => void): Promise<void> {
  send();
  await eventuallyValue(
    'every process of the tree to exit',
    () => Promise.resolve(pids.filter(alive)),
    (left) => left.length === 0,
    { timeoutMs: SHUTDOWN_TIMEOUT_MS + 30_000 },
  );
}

/**
 * An upload whose body is half sent: `finish()` sends the rest and resolves with the reply, or
 * with the error when the connection was cut.
 */
async function uploadInFlight(name: string) {
  const { body, contentType } = multipartBody([
    { name: 'apiKey', value: apiKey },
    { name: 'current', value: 'true' },
    { name: 'apk', filename: name, data: await fixture(name) },
  ]);
  const req = httpsRequest(`${adminUrl}/apps/api_upload`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'content-length': String(body.length) },
    ca: await ca(),
    agent: false,
  });
  // Node's errors come from another realm than jest's `Error`: told apart by shape, not instanceof.
  const reply = new Promise<Answer>((resolve) => {
    const failed = (err: unknown) => resolve({ error: String(err) });
    req.on('response', (res) => void collectReply(res).then((r) => resolve({ reply: r }), failed));
    req.on('error', failed);
  });
  const half = Math.floor(body.length / 2);
  req.write(body.subarray(0, half));
  await once(req, 'socket');
  // Pacing, not a wait for a result: the API is reading the body when the signal comes.
  await sleep(500);
  return {
    finish: () => {
      req.end(body.subarray(half));
      return reply;
    },
    abandon: () => req.destroy(),
  };
}

type Answer = { reply: Reply } | { error: string };

/** Acknowledged (accepted, or queued and still processing) or refused retryably. */
function expectAnsweredSafely(answer: Answer): boolean {
  if ('error' in answer) throw new Error(`the upload got no answer: ${answer.error}`);
  const { reply } = answer;
  if (reply.status === 503) {
    expect(reply.headers['retry-after']).toBeDefined();
    return false;
  }
  expect([200, 202]).toContain(reply.status);
  expect(reply.text).toMatch(/^deploy (successful|queued, still processing)/);
  return true;
}

async function versionsInStore(): Promise<number[]> {
  const reply = await request(`${adminUrl}/api/v2/apps/${PACKAGE}`, {
    headers: { authorization: `Bearer ${apiKey}` },
    ca: await ca(),
  });
  if (reply.status === 404) return [];
  expect(reply.status).toBe(200);
  return reply.json<{ apks: { versionCode: number }[] }>().apks.map((a) => a.versionCode);
}

/** The acknowledged upload of `versionCode` reaches the store once workers run again. */
async function expectStored(versionCode: number): Promise<void> {
  await eventuallyValue(
    `version ${versionCode} to reach the store`,
    versionsInStore,
    (stored) => stored.includes(versionCode),
    { intervalMs: 250 },
  );
}

/** Graceful: nothing killed at the deadline or forced (each process says so when it happens). */
function expectCleanStop(running: Running): Promise<void> {
  expect(running.output).not.toMatch(/did not stop within the shutdown deadline|deadline passed/);
  expect(running.output).not.toMatch(/forcing exit/);
  return expectNothingLeft();
}

async function expectNothingLeft(): Promise<void> {
  expect(await processesMentioning(dataDir)).toEqual([]);
}

beforeAll(async () => {
  const install = await freshInstall('apkrelay-stop-', {
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
  ({ dataDir, env, adminUrl } = install);
});

afterAll(async () => {
  for (const pid of await processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

/** One start, an upload of `apk` in flight, the stop under test; returns whether it was acked. */
async function stopWithUploadInFlight(
  apk: string,
  signal: (running: Running) => void,
): Promise<boolean> {
  const running = await start();
  if (!apiKey) {
    const created = await request(`${adminUrl}/api/v2/accounts`, {
      method: 'POST',
      json: { email: 'stop@example.com', password: 'stop-password-1' },
      ca: await ca(),
    });
    expect(created.status).toBe(201);
    apiKey = created.json<{ apiKey: string }>().apiKey;
  }
  const pids = await treeOf(running);
  const upload = await uploadInFlight(apk);
  const answered = upload.finish();
  await stopAndWait(pids, () => signal(running));
  const acknowledged = expectAnsweredSafely(await answered);
  await expectCleanStop(running);
  return acknowledged;
}

describe('stopping `npm start`', () => {
  const acked = new Map<number, boolean>();

  test('SIGINT to the whole process group (Ctrl-C): clean stop, upload answered', async () => {
    const group = (r: Running) => process.kill(-r.npm.pid!, 'SIGINT');
    acked.set(1, await stopWithUploadInFlight('version-1.apk', group));
  });

  test('SIGTERM to the whole process group (systemd, kill -- -pgid): clean stop', async () => {
    const group = (r: Running) => process.kill(-r.npm.pid!, 'SIGTERM');
    acked.set(2, await stopWithUploadInFlight('version-2.apk', group));
  });

  test('SIGTERM to the supervisor alone: clean stop', async () => {
    const supervisor = (r: Running) => process.kill(r.supervisorPid, 'SIGTERM');
    acked.set(3, await stopWithUploadInFlight('version-3.apk', supervisor));
  });

  test('a deliberate second signal past the grace forces exit at once, services included', async () => {
    const running = await start();
    // Every upload acknowledged by an earlier stop is in the store now.
    for (const [versionCode, wasAcked] of acked) if (wasAcked) await expectStored(versionCode);
    const pids = await treeOf(running);
    // An upload that never finishes holds the graceful stop until its deadline.
    const upload = await uploadInFlight('version-1.apk');
    await stopAndWait(pids, () => {
      process.kill(-running.npm.pid!, 'SIGTERM');
      // Pacing, not a window: past the grace in which a repeat is the same stop.
      setTimeout(() => signalGroup(running.npm.pid!, 'SIGTERM'), FORCE_GRACE_MS + 500);
    });
    upload.abandon();
    // At once: forced, not ended by the graceful stop's deadline (which the held upload reaches).
    expect(running.output).toMatch(/forcing exit/);
    expect(running.output).not.toMatch(/did not stop within the shutdown deadline|deadline passed/);
    await expectNothingLeft();
  });
});
