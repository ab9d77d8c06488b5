/**
 * Device clients end to end against a real stack (API + workers, HTTPS with the test CA): a
 * fleet on the old APK receives the new current one, downloads and verifies it and (CUSTOM)
 * broadcasts APPLY repeatedly; setting the old APK current again gives exactly one GIVEUP per
 * device. Then the hostile paths, through a transport that sits between client and server: a
 * download cut halfway resumes with Range and ends verified; a tampered download and an event
 * whose signature no longer matches are refused and nothing is installed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createNodeClient } from '../../../device-client/node/index';
import { noErrorCapture } from '../../../device-client/node/adapters';
import { nodeTransport } from '../../../device-client/node/transport';
import type { ClientEvent } from '../../../device-client/core/events';
import type { Clock, OpenResponse, Transport } from '../../../device-client/core/ports';
import { startFleet, type FleetEvent } from '../../../device-client/simulator/fleet';
import { newAccount } from '../../helpers/accounts';
import { FakeClock } from '../../helpers/device-client-fakes';
import { eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';
import {
  eventsOf,
  md5Of,
  openStreams as openStreamsOf,
  SAMPLE,
  streamEndedByOwner,
  until,
} from './helpers';

jest.setTimeout(120_000);
const METRICS_TOKEN = 'fleet-updates-metrics-token';
let stack: TestStack;
let tmp: string;
beforeAll(async () => {
  stack = await startStack({ metricsToken: METRICS_TOKEN });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-device-e2e-'));
});
afterAll(async () => {
  await stack.close();
  await rm(tmp, { recursive: true, force: true });
});

const openStreams = () => openStreamsOf(stack, METRICS_TOKEN);

async function setCurrent(apiKey: string, versionCode: number): Promise<void> {
  const reply = await request(`${stack.urls.admin}/api/v2/apps/${SAMPLE}/current`, {
    method: 'PUT',
    json: { versionCode },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(reply.status).toBe(200);
}

test('3 devices on the old APK: new APK downloaded, verified, APPLY repeated; old current again → one GIVEUP each', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const events: FleetEvent[] = [];
  // The devices' timers (APPLY every 400 ms) fire when the test advances this clock, not before.
  const clock = new FakeClock(Date.now());
  const fleet = startFleet({
    pushUrl: stack.urls.push,
    baseUrl: stack.urls.admin,
    apiKey,
    packageName: SAMPLE,
    devices: 3,
    devicePrefix: 'kiosk',
    installedMd5: await md5Of('version-1.apk'),
    strategy: 'CUSTOM',
    applyIntervalMs: 400,
    storageDir: path.join(tmp, 'fleet'),
    ca: stack.ca,
    clock,
    onEvent: (e) => events.push(e),
  });
  const devices = fleet.clients.map((c) => c.deviceId);
  try {
    await until(
      '3 registrations',
      () => events.filter((e) => e.event === 'registered').length === 3,
    );
    const registered = events.filter((e) => e.event === 'registered');
    registered.sort((a, b) => a.device.localeCompare(b.device));
    expect(registered).toEqual(
      devices.map((device) => ({ device, event: 'registered', status: 'enabled' })),
    );
    // The hub holds all three streams, so the upload's notice goes to each of them.
    await eventuallyValue('3 open push streams', openStreams, (n) => n === 3);
    await uploadFixture(stack, apiKey, 'version-2.apk');
    const v2 = await md5Of('version-2.apk');
    for (const d of devices) {
      await until(
        `the first APPLY on ${d}`,
        () => eventsOf(events, d, 'apply').length === 1,
        20_000,
        () => events,
      );
    }
    // Two APPLY periods of the devices' clock: each broadcasts twice more, then waits again.
    await clock.advance(400);
    await clock.advance(400);
    for (const d of devices) {
      expect(eventsOf(events, d, 'apply')).toHaveLength(3);
      expect(eventsOf(events, d, 'version')).toEqual([
        expect.objectContaining({ md5: v2, versionCode: 2 }),
      ]);
      expect(eventsOf(events, d, 'downloaded')).toEqual([
        { device: d, event: 'downloaded', md5: v2, verified: true },
      ]);
      const apply = eventsOf(events, d, 'apply')[0] as Extract<FleetEvent, { event: 'apply' }>;
      // The broadcast's uri is the verified file: the bytes of version-2.apk.
      expect(await readFile(new URL(apply.uri))).toEqual(await fixture('version-2.apk'));
    }
    expect(fleet.clients.every((c) => c.client.hasPendingUpdate())).toBe(true);

    await setCurrent(apiKey, 1);
    for (const d of devices)
      await until(`GIVEUP on ${d}`, () => eventsOf(events, d, 'giveup').length > 0);
    const applies = events.filter((e) => e.event === 'apply').length;
    // Three APPLY periods: a broadcast timer the give-up left armed fires in them. Then each
    // stream's end, after all the server sent before it: a repeated GIVEUP would be in it.
    await clock.advance(3 * 400);
    for (const d of devices) {
      const mine = () => events.filter((e) => e.device === d);
      const seen = await streamEndedByOwner(stack, apiKey, d, mine);
      expect(seen.filter((e) => e.event === 'giveup')).toHaveLength(1);
    }
    expect(events.filter((e) => e.event === 'apply')).toHaveLength(applies);
    expect(fleet.clients.some((c) => c.client.hasPendingUpdate())).toBe(false);
    expect(events.filter((e) => e.event === 'error' || e.event === 'refused')).toEqual([]);
  } finally {
    await fleet.close(1_000);
  }
});

/** A transport between the client and the real server, with hooks on streamed bodies. */
function interposed(
  base: Transport,
  hooks: {
    download?: (res: OpenResponse, nth: number) => AsyncIterable<Uint8Array>;
    stream?: (chunk: string) => string;
  },
  seen: Array<{ url: string; range: string | undefined; status: number }>,
): Transport & { streaming(): boolean } {
  let downloads = 0;
  let streamed = false;
  return {
    streaming: () => streamed,
    request: (req) => base.request(req),
    async open(req) {
      const res = await base.open(req);
      if (req.url.includes('/download')) {
        seen.push({ url: req.url, range: req.headers?.range, status: res.status });
        const body = hooks.download?.(res, downloads++) ?? res.body;
        return { ...res, body, close: () => res.close() };
      }
      if (req.url.includes('/api/v2/stream')) {
        const edit = hooks.stream ?? ((text: string) => text);
        const decoder = new TextDecoder();
        const body = (async function* () {
          for await (const chunk of res.body) {
            streamed = true; // the hub has attached the stream: its first event came
            yield Buffer.from(edit(decoder.decode(chunk, { stream: true })));
          }
        })();
        return { ...res, body, close: () => res.close() };
      }
      return res;
    },
  };
}

async function oneDevice(
  apiKey: string,
  name: string,
  transport: Transport & { streaming(): boolean },
  clock?: Clock,
) {
  const events: ClientEvent[] = [];
  const installs: string[] = [];
  const client = createNodeClient({
    applyIntervalMs: 300,
    downloadBackoff: { initialMs: 200, maxMs: 200, jitter: 0 },
    maxTamperedDownloads: 2,
  });
  client.on((e) => events.push(e));
  client.setCurrentStrategy('CUSTOM');
  client.start({
    apiKey,
    deviceId: name,
    packageName: SAMPLE,
    pushUrl: stack.urls.push,
    baseUrl: stack.urls.admin,
    installedMd5: await md5Of('version-1.apk'),
    storageDir: path.join(tmp, name),
    transport,
    errorCapture: noErrorCapture,
    logger: { log: () => undefined },
    onInstall: (file) => void installs.push(file),
    ...(clock ? { clock } : {}),
  });
  await until(`${name} registered`, () => events.some((e) => e.event === 'registered'));
  await until(`${name}'s push stream to open`, () => transport.streaming());
  return { client, events, installs };
}

describe('hostile network', () => {
  let apiKey: string;
  beforeAll(async () => {
    ({ apiKey } = await newAccount(stack));
    await uploadFixture(stack, apiKey, 'version-1.apk');
  });

  test('a download cut halfway resumes with Range and ends verified', async () => {
    const seen: Array<{ url: string; range: string | undefined; status: number }> = [];
    const half = (await fixture('version-2.apk')).length >> 1;
    const base = nodeTransport({ ca: stack.ca });
    const transport = interposed(
      base,
      {
        download: (res, nth) =>
          nth > 0
            ? res.body
            : (async function* () {
                let sent = 0;
                for await (const chunk of res.body) {
                  const room = half - sent; // the first connection dies halfway
                  if (room <= 0) break;
                  const part = chunk.subarray(0, room);
                  sent += part.byteLength;
                  yield part;
                }
                throw new Error('connection reset (test)');
              })(),
      },
      seen,
    );
    const { client, events, installs } = await oneDevice(apiKey, 'resume-1', transport);
    try {
      await uploadFixture(stack, apiKey, 'version-2.apk');
      await until(
        'verified download',
        () => events.some((e) => e.event === 'downloaded'),
        20_000,
        () => events,
      );
      expect(events.filter((e) => e.event === 'downloaded')).toEqual([
        { event: 'downloaded', md5: await md5Of('version-2.apk'), verified: true },
      ]);
      expect(seen.map((s) => [s.range, s.status])).toEqual([
        [undefined, 200],
        [`bytes=${half}-`, 206],
      ]);
      await expect(client.applyUpdate()).resolves.toBe(true);
      expect(await readFile(installs[0]!)).toEqual(await fixture('version-2.apk'));
    } finally {
      await client.close(0);
      base.destroy();
      await setCurrent(apiKey, 1);
    }
  });

  test('a tampered download is refused and never installed', async () => {
    const seen: Array<{ url: string; range: string | undefined; status: number }> = [];
    const base = nodeTransport({ ca: stack.ca });
    const transport = interposed(
      base,
      {
        download: (res) =>
          (async function* () {
            let first = true;
            for await (const chunk of res.body) {
              const copy = Buffer.from(chunk);
              if (first) copy[copy.length >> 1] = copy[copy.length >> 1]! ^ 0x01; // one bit flipped
              first = false;
              yield copy;
            }
          })(),
      },
      seen,
    );
    // The download retries (200 ms apart) wait for this clock, moved by the test.
    const clock = new FakeClock(Date.now());
    const { client, events, installs } = await oneDevice(apiKey, 'tamper-1', transport, clock);
    const downloads = () => events.filter((e) => e.event === 'downloaded').length;
    try {
      await setCurrent(apiKey, 2);
      await until(
        'a refused download',
        () => downloads() === 1,
        20_000,
        () => events,
      );
      await clock.advance(200); // the retry
      await until(
        'two refused downloads',
        () => downloads() === 2,
        20_000,
        () => events,
      );
      // The second refusal is the last (maxTamperedDownloads 2): the update is abandoned and
      // no retry is left armed, so four retry periods start no third download.
      expect(events.filter((e) => e.event === 'error')).toEqual([
        { event: 'error', message: expect.stringMatching(/abandoned/) as unknown },
      ]);
      expect(clock.pending().filter((ms) => ms <= 4 * 200)).toEqual([]);
      await clock.advance(4 * 200);
      const handled = await streamEndedByOwner(stack, apiKey, 'tamper-1', () => events);
      expect(handled.filter((e) => e.event === 'downloaded')).toHaveLength(2);
      expect(seen.map((s) => s.status)).toEqual([200, 200]); // two downloads asked, no third
      expect(events.filter((e) => e.event === 'downloaded')).toEqual([
        expect.objectContaining({ verified: false }),
        expect.objectContaining({ verified: false }),
      ]);
      expect(events.filter((e) => e.event === 'apply')).toEqual([]);
      await expect(client.applyUpdate()).resolves.toBe(false);
      expect(installs).toEqual([]);
      expect(client.hasPendingUpdate()).toBe(false);
    } finally {
      await client.close(0);
      base.destroy();
      await setCurrent(apiKey, 1);
    }
  });

  test('a version event altered in transit (signature no longer matches) is refused: nothing downloaded', async () => {
    const seen: Array<{ url: string; range: string | undefined; status: number }> = [];
    const base = nodeTransport({ ca: stack.ca });
    const transport = interposed(
      base,
      {
        stream: (text) => text.replace(/"versionCode":2/g, '"versionCode":3'),
      },
      seen,
    );
    const { client, events, installs } = await oneDevice(apiKey, 'badsig-1', transport);
    try {
      await setCurrent(apiKey, 2);
      await until(
        'refusal',
        () => events.some((e) => e.event === 'refused'),
        20_000,
        () => events,
      );
      // The stream's end, after all the server sent before it: a second refusal would be in it.
      await streamEndedByOwner(stack, apiKey, 'badsig-1', () => events);
      expect(events.filter((e) => e.event === 'refused')).toEqual([
        { event: 'refused', what: 'version', reason: 'bad signature' },
      ]);
      expect(events.filter((e) => ['version', 'downloaded', 'apply'].includes(e.event))).toEqual(
        [],
      );
      expect(seen).toEqual([]); // no download was even attempted
      expect(installs).toEqual([]);
    } finally {
      await client.close(0);
      base.destroy();
    }
  });
});
