/**
 * Issue 19, targeting: a rollout limited by installation metadata (`store` in a list) and naming
 * an explicit device id is offered, over SSE, only to the installations it targets; the others
 * keep the previous APK. The devices are device clients (device-client/, through the fleet
 * simulator) registering their metadata and holding real push streams to the real API.
 *
 * Who is in is written from docs/rollouts.md ("Who is in"), computed here independently of the
 * product's code: the device ids named, and the installations whose `store` is listed and whose
 * bucket (the first four bytes of SHA-256 of `<appId>:<deviceId>`, big-endian, modulo 10,000) is
 * below the stage's percentage × 100.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFleet, type FleetEvent } from '../../../device-client/simulator/fleet';
import { newAccount } from '../../helpers/accounts';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import {
  eventsOf,
  md5Of,
  SAMPLE,
  streamEndedByOwner,
  until,
} from '../../e2e/device-client/helpers';

jest.setTimeout(180_000);
/** Events reach every stream in well under 2 s unloaded; ten times that. */
const EVENT_MS = 20_000;
let stack: TestStack;
let tmp: string;
beforeAll(async () => {
  stack = await startStack();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-targeting-'));
});
afterAll(async () => {
  await stack?.close();
  await rm(tmp, { recursive: true, force: true });
});

const DEVICES = 24;
/** Each device's store, by its number (1-based): north, south, west in turn; the last has none. */
const STORES = ['north', 'south', 'west'];
const storeOf = (deviceId: string): string | null => {
  const n = Number(deviceId.split('-')[1]);
  return n === DEVICES ? null : STORES[(n - 1) % 3]!;
};
/** A west till (outside the metadata) named explicitly. */
const EXPLICIT = 'till-03';

/** The bucket of docs/rollouts.md. */
function bucket(appId: string, deviceId: string): number {
  const digest = createHash('sha256').update(`${appId}:${deviceId}`, 'utf8').digest();
  return digest.readUInt32BE(0) % 10_000;
}

test('metadata and explicit ids: only targeted installations are offered the new APK', async () => {
  const { apiKey } = await newAccount(stack, DEVICES);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk', { current: false });
  const [v1, v2] = [await md5Of('version-1.apk'), await md5Of('version-2.apk')];
  const app = await stack.mongo.db.collection('apps').findOne({ package: SAMPLE });
  const appId = String(app!._id);

  const events: FleetEvent[] = [];
  const fleet = startFleet({
    pushUrl: stack.urls.push,
    baseUrl: stack.urls.web,
    apiKey,
    packageName: SAMPLE,
    devices: DEVICES,
    devicePrefix: 'till',
    installedMd5: null,
    metadata: (id): Record<string, string> => {
      const store = storeOf(id);
      return store ? { store } : {};
    },
    storageDir: path.join(tmp, 'fleet'),
    ca: stack.ca,
    onEvent: (e) => events.push(e),
  });
  const ids = fleet.clients.map((c) => c.deviceId);
  const offers = (d: string) =>
    eventsOf(events, d, 'version').map((e) => (e as Extract<FleetEvent, { event: 'version' }>).md5);
  try {
    // Each device's stream is open and decided: offered the current APK.
    for (const d of ids) await until(`${d} offered v1`, () => offers(d).length === 1, EVENT_MS);
    expect(ids.map(offers)).toEqual(ids.map(() => [v1]));

    const started = await ownerApi(stack, apiKey)('POST', `/api/v2/apps/${SAMPLE}/rollout`, {
      versionCode: 2,
      stages: [50, 100],
      targeting: { metadata: { key: 'store', values: ['north', 'south'] }, deviceIds: [EXPLICIT] },
    });
    expect(started.status).toBe(201);

    const listed = ids.filter((d) => ['north', 'south'].includes(storeOf(d) ?? ''));
    const inside = new Set([EXPLICIT, ...listed.filter((d) => bucket(appId, d) < 5_000)]);
    // The draw is meaningful: some listed stores are in, some out (2 × 0.5^16 otherwise).
    expect(listed.some((d) => inside.has(d)) && listed.some((d) => !inside.has(d))).toBe(true);
    for (const d of inside) {
      await until(
        `${d} offered v2`,
        () => offers(d).length === 2,
        EVENT_MS,
        () => offers(d),
      );
    }
    // The same fan-out reached every stream; the others must get nothing new up to the end of
    // their stream, which the server writes after all it sent before.
    for (const d of ids) {
      const mine = () => events.filter((e) => e.device === d);
      const got = (await streamEndedByOwner(stack, apiKey, d, mine)).filter(
        (e): e is Extract<FleetEvent, { event: 'version' }> => e.event === 'version',
      );
      expect({ d, offers: got.map((e) => e.md5) }).toEqual({
        d,
        offers: inside.has(d) ? [v1, v2] : [v1],
      });
    }
    expect(events.filter((e) => e.event === 'error' || e.event === 'refused')).toEqual([]);
  } finally {
    await fleet.close(1_000);
  }
});
