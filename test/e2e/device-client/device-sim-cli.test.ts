/**
 * `apkrelay device-sim` as operators run it: the BUILT CLI (`dist/`, built by `pretest`) in its
 * own process against a real stack. 20 exceptions raised while the server is unreachable are
 * QUEUED, survive a restart of the simulator, then are REGISTERED once it is reachable: none
 * lost, none sent twice. And 2,000 devices held in one process: all register, keep their push
 * streams, and all receive, download and verify a new APK.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../ops/services/child';
import { newAccount } from '../../helpers/accounts';
import { eventually } from '../../helpers/eventually';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { startLightServer } from './light-server';
import { md5Of, SAMPLE, until } from './helpers';
import { sim as runSim } from './sim-cli';

jest.setTimeout(240_000);

let stack: TestStack;
let tmp: string;
let caFile: string;
beforeAll(async () => {
  stack = await startStack();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-device-sim-'));
  caFile = path.join(tmp, 'ca.pem');
  await writeFile(caFile, stack.ca);
});
afterAll(async () => {
  await stack.close();
  await rm(tmp, { recursive: true, force: true });
});

const sim = (args: string[]) => runSim(caFile, args);

test('20 exceptions while the server is down: QUEUED, kept across a restart, then REGISTERED once each', async () => {
  const { apiKey, id } = await newAccount(stack, 10); // plan of 10: 20 exceptions per 24 h
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const dead = `https://localhost:${await freePort()}`; // nothing listens there
  const common = [
    '--api-key',
    apiKey,
    '--package',
    SAMPLE,
    '--devices',
    '1',
    '--device-prefix',
    'crashy',
    '--installed-md5',
    await md5Of('version-1.apk'),
    '--storage-dir',
    path.join(tmp, 'crashy'),
    '--exceptions',
    '20',
  ];
  const down = sim([
    ...common,
    '--push-url',
    dead,
    '--base-url',
    dead,
    '--duration-s',
    '3',
    '--flush-timeout-s',
    '1',
  ]);
  const first = await down.done;
  expect(first.code).toBe(0);
  const queued = down.lines.filter((l) => l.event === 'exception');
  expect(queued.map((l) => l.status)).toEqual(Array(20).fill('QUEUED'));
  const fingerprints = new Set(queued.map((l) => l.fingerprint));
  expect(fingerprints.size).toBe(20);
  expect(first.stderr).toContain('still queued on 1');
  const saved = JSON.parse(
    await readFile(path.join(tmp, 'crashy', 'crashy-1', 'exceptions-queue.json'), 'utf8'),
  ) as unknown[];
  expect(saved).toHaveLength(20);

  // Restart against the live server; the same 20 errors happen again in this run.
  const up = sim([...common, '--push-url', stack.urls.push, '--base-url', stack.urls.admin]);
  try {
    await until(
      '20 verdicts',
      () => up.lines.filter((l) => l.event === 'exception').length >= 20,
      30_000,
      () => up.lines,
    );
    // No window for a duplicate verdict: stopping flushes whatever is still queued and prints
    // its verdicts before exit, so a duplicate shows in the count below, and the queue file must
    // be empty afterwards.
  } finally {
    up.stop();
  }
  expect((await up.done).code).toBe(0);
  const verdicts = up.lines.filter((l) => l.event === 'exception');
  expect(verdicts.map((l) => [l.status, l.reason])).toEqual(Array(20).fill(['REGISTERED', null]));
  expect(new Set(verdicts.map((l) => l.fingerprint))).toEqual(fingerprints);
  // The server holds each exactly once.
  const reports = stack.mongo.db.collection('exceptions');
  await eventually(
    '20 stored reports',
    async () => (await reports.countDocuments({ accountId: id })) >= 20,
  );
  expect(await reports.countDocuments({ accountId: id })).toBe(20);
  const queue = JSON.parse(
    await readFile(path.join(tmp, 'crashy', 'crashy-1', 'exceptions-queue.json'), 'utf8'),
  ) as unknown[];
  expect(queue).toEqual([]);
});

test('2,000 devices in one process: all register, hold their streams, and download a new APK', async () => {
  const n = 2_000;
  // A light in-memory server (real HTTPS, SSE and signatures): the numbers are the simulator's.
  const server = await startLightServer();
  const run = sim([
    '--api-key',
    'k',
    '--package',
    SAMPLE,
    '--devices',
    String(n),
    '--device-prefix',
    'fleet',
    '--installed-md5',
    await md5Of('version-1.apk'),
    '--storage-dir',
    path.join(tmp, 'fleet'),
    '--push-url',
    server.url,
    '--base-url',
    server.url,
    '--start-rate',
    '1000',
    '--log-level',
    'error',
  ]);
  let peakRss = 0;
  const sampler = setInterval(() => {
    void readFile(`/proc/${run.pid}/status`, 'utf8')
      .then((s) => (peakRss = Math.max(peakRss, Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0))))
      .catch(() => undefined);
  }, 250);
  const started = Date.now();
  try {
    const count = (event: string) =>
      new Set(run.lines.filter((l) => l.event === event).map((l) => l.device)).size;
    await until(
      `${n} registrations`,
      () => count('registered') === n,
      120_000,
      () => count('registered'),
    );
    await until(
      `${n} open streams`,
      () => server.streams.size === n,
      60_000,
      () => server.streams.size,
    );
    const held = Date.now();
    expect(server.offer(SAMPLE, await fixture('version-2.apk'))).toBe(n);
    await until(
      `${n} verified downloads`,
      () => count('downloaded') === n,
      120_000,
      () => count('downloaded'),
    );
    const v2 = await md5Of('version-2.apk');
    expect(
      run.lines.filter((l) => l.event === 'downloaded' && (!l.verified || l.md5 !== v2)),
    ).toEqual([]);
    expect(run.lines.filter((l) => l.event === 'error' || l.event === 'refused')).toEqual([]);
    // Held: no device's stream ended between its registration and the offer it carried.
    expect(run.lines.filter((l) => l.event === 'stream-ended')).toEqual([]);
    process.stdout.write(
      `device-sim: ${n} devices registered and streaming after ${held - started} ms; peak RSS ${Math.round(peakRss / 1024)} MiB\n`,
    );
  } finally {
    clearInterval(sampler);
    run.stop();
  }
  const end = await run.done;
  await server.close();
  expect(end.code).toBe(0);
  expect(end.stderr).toContain(`device-sim: ${n} devices`);
});
