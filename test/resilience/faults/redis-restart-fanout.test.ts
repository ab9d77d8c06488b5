/**
 * Fault: Redis restarts while devices hold their push streams and new versions are being made
 * current. One version is uploaded (acknowledged) just before the stop, so its ingest and notice
 * straddle the restart; another right after Redis is back, before the API's notice subscription
 * has necessarily reconnected. Half of the devices also lose their connection during the outage
 * and reconnect (with Last-Event-ID) while Redis is still down. Promise: both uploads complete,
 * and every device, on whatever stream it holds by then, is offered the version current after the
 * restart.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { newAccount } from '../../helpers/accounts';
import { eventually, eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { postMultipart } from '../../helpers/multipart';
import { connectSse, type SseClient, type SseEvent } from '../../helpers/sse';
import type { TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { recordFigures } from '../report';
import { usePrivateStack, type PrivateServices } from './private-services';
import { waitForVerdicts } from './upload-outcomes';

const PACKAGE = 'dev.apkrelay.sample';
const DEVICES = 8;
const REDIS_DOWN_MS = 6_000;

let services: PrivateServices;
let stack: TestStack;
usePrivateStack((s, st) => ([services, stack] = [s, st]));

/** A device that keeps its stream open: it reconnects (Last-Event-ID) whenever the stream ends. */
interface Device {
  readonly deviceId: string;
  readonly seen: SseEvent[];
  connections: number;
  client: SseClient | undefined;
  drop(): Promise<void>;
  stop(): Promise<void>;
}

function keepStreaming(url: string, apiKey: string, deviceId: string): Device {
  let running = true;
  let lastEventId: string | undefined;
  let dropped = false;
  const device: Device = {
    deviceId,
    seen: [],
    connections: 0,
    client: undefined,
    async drop() {
      dropped = true;
      await device.client?.close();
    },
    async stop() {
      running = false;
      await device.client?.close();
      await loop;
    },
  };
  const loop = (async () => {
    while (running) {
      const client = connectSse(url, {
        ca: stack.ca,
        apiKey,
        ...(lastEventId ? { lastEventId } : {}),
      });
      device.client = client;
      device.connections += 1;
      await client.status.catch(() => 0);
      let taken = 0;
      while (running && !client.ended && !dropped) {
        device.seen.push(...client.events.slice(taken));
        taken = client.events.length;
        await sleep(50); // pacing: how often the device's events are copied
      }
      device.seen.push(...client.events.slice(taken));
      lastEventId = client.lastEventId ?? lastEventId;
      dropped = false;
      await client.close();
      if (running) await sleep(500); // pacing: the device's reconnection delay
    }
  })();
  return device;
}

async function uploadAsync(apiKey: string, name: string): Promise<string> {
  // A client retries a 503 after its Retry-After; anything else is a failure of the test.
  for (let i = 0; i < 20; i++) {
    const reply = await postMultipart(
      `${stack.urls.admin}/api/v2/apps/${PACKAGE}/apks`,
      [
        { name: 'current', value: 'true' },
        { name: 'apk', filename: name, data: await fixture(name) },
      ],
      { ca: stack.ca, headers: { authorization: `Bearer ${apiKey}` } },
    );
    if (reply.status === 202) return reply.json<{ jobId: string }>().jobId;
    if (reply.status !== 503 || !reply.headers['retry-after']) {
      throw new Error(`upload of ${name}: ${reply.status} ${reply.text}`);
    }
    await sleep(1_000);
  }
  throw new Error(`upload of ${name}: still 503 after 20 tries`);
}

test('Redis restarted during fan-out: devices reconnect and are offered the version current after the restart', async () => {
  const { apiKey, id: accountId } = await newAccount(stack, DEVICES);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const apks = stack.mongo.db.collection<{ versionCode: number; md5: string }>('apks');
  const v1 = (await apks.findOne({ accountId, versionCode: 1 }))!;
  const devices: Device[] = [];
  try {
    for (let d = 0; d < DEVICES; d++) {
      const deviceId = `fanout-${d}`;
      const reply = await request(`${stack.urls.push}/api/v2/installations`, {
        method: 'POST',
        json: { package: PACKAGE, deviceId, installedMd5: v1.md5 },
        headers: { authorization: `Bearer ${apiKey}` },
        ca: stack.ca,
      });
      expect(reply.json()).toMatchObject({ status: 'enabled' });
      const url = `${stack.urls.push}/api/v2/stream?package=${PACKAGE}&deviceId=${deviceId}`;
      devices.push(keepStreaming(url, apiKey, deviceId));
    }
    for (const d of devices) {
      await eventually(`${d.deviceId}'s status event`, () =>
        d.seen.some((e) => e.event === 'status'),
      );
    }

    const v2Job = await uploadAsync(apiKey, 'version-2.apk');
    await services.stopRedis();
    await sleep(1_000); // fault timing: the drops below come 1 s into the outage
    // Half of the devices lose their connection and reconnect while Redis is down.
    await Promise.all(devices.filter((_, i) => i % 2 === 0).map((d) => d.drop()));
    await sleep(REDIS_DOWN_MS - 1_000); // fault timing: Redis stays down REDIS_DOWN_MS in all
    await services.startRedis();
    const faultsInjected = 1;
    const v3Job = await uploadAsync(apiKey, 'version-3.apk');

    const statuses = await waitForVerdicts(
      stack.urls.admin,
      stack.ca,
      apiKey,
      [v2Job, v3Job],
      60_000,
    );
    const lostUploads = [v2Job, v3Job].filter((id) => statuses.get(id) !== 'done');
    recordFigures('faults:redis-restart-fanout', {
      faultsInjected,
      acknowledgedItems: 2,
      acknowledgedLost: lostUploads.length,
    });
    expect(lostUploads).toEqual([]);
    const v3 = (await apks.findOne({ accountId, versionCode: 3 }))!;
    const app = await stack.mongo.db.collection('apps').findOne({ accountId, package: PACKAGE });
    expect(String(app?.currentApkId)).toBe(String((v3 as unknown as { _id: unknown })._id));

    // Every device catches up: the last version it was offered is v3.
    const lastOffer = (d: Device) => {
      const offers = d.seen.filter((e) => e.event === 'version');
      const last = offers[offers.length - 1];
      return last ? (JSON.parse(last.data) as { md5: string }).md5 : null;
    };
    const behind = () =>
      devices
        .filter((d) => lastOffer(d) !== v3.md5)
        .map((d) => ({
          deviceId: d.deviceId,
          connections: d.connections,
          events: d.seen.map((e) => e.event),
          lastOffer: lastOffer(d),
        }));
    const caughtUpFrom = Date.now();
    await eventuallyValue(
      'every device to be offered v3',
      () => Promise.resolve(behind()),
      (left) => left.length === 0,
      { intervalMs: 200 },
    );
    console.log(
      `fan-out: connections per device ${devices.map((d) => d.connections).join(',')}; ` +
        `all offered v3 ${Date.now() - caughtUpFrom} ms after both verdicts`,
    );
    // The dropped devices did reconnect.
    for (const [i, d] of devices.entries())
      if (i % 2 === 0) expect(d.connections).toBeGreaterThan(1);
  } finally {
    await Promise.all(devices.map((d) => d.stop()));
  }
});
