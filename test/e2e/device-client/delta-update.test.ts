/**
 * Delta updates end to end (docs/delta-updates.md): real Node device clients on v1 (aapt-built,
 * apksigner-signed, its file readable), the real stack, the devices online when v2 is uploaded.
 * The notice reaches them before the worker has made the v1 → v2 patch: they are told "not ready
 * yet" and ask again, then fetch it from /download/delta, apply it, verify it against the signed
 * notice and install the exact v2 bytes; the heartbeat reports the update as a delta and the
 * funnel counts it. A device whose installed file is not v1 gets a patch that does
 * not give v2: it falls back to the full APK and reports why (its ARDELTA2 is refused: patch-failed).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClientEvent } from '../../../device-client/core/events';
import { noErrorCapture } from '../../../device-client/node/adapters';
import { createNodeClient } from '../../../device-client/node/index';
import { nodeTransport } from '../../../device-client/node/transport';
import { deltaCollections } from '../../../shared/delta/collections';
import { newAccount } from '../../helpers/accounts';
import { eventually, eventuallyValue } from '../../helpers/eventually';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { SAMPLE, until } from './helpers';

jest.setTimeout(120_000);
let stack: TestStack;
let tmp: string;
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  stack = await startStack({ heartbeatSeconds: 1 });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-delta-'));
});
afterAll(async () => {
  await stack?.close();
  await rm(tmp, { recursive: true, force: true });
});

/** A device running `installed` (its file and MD5 as given); what it installs is kept. */
async function device(apiKey: string, name: string, installed: Buffer, claimedMd5: string) {
  const events: ClientEvent[] = [];
  const installedFile = path.join(tmp, `${name}-installed.apk`);
  await writeFile(installedFile, installed);
  const transport = nodeTransport({ ca: stack.ca });
  const client = createNodeClient({ applyIntervalMs: 60_000 });
  const got: Buffer[] = [];
  client.on((e) => events.push(e));
  client.setCurrentStrategy('CUSTOM');
  client.start({
    apiKey,
    deviceId: name,
    packageName: SAMPLE,
    pushUrl: stack.urls.push,
    baseUrl: stack.urls.web,
    installedMd5: claimedMd5,
    installedApkFile: installedFile,
    installedApkSize: installed.length,
    storageDir: path.join(tmp, name),
    transport,
    errorCapture: noErrorCapture,
    logger: { log: () => undefined },
    onInstall: async (file) => void got.push(await readFile(file)),
  });
  await until(`${name} registered`, () => events.some((e) => e.event === 'registered'));
  return {
    client,
    got,
    async close() {
      await client.close(1_000);
      transport.destroy();
    },
  };
}

test('v1 → v2 comes as a proven patch; a device whose file is not v1 falls back', async () => {
  const { apiKey, id } = await newAccount(stack);
  const [v1, v2] = [await fixture('version-1.apk'), await fixture('version-2.apk')];
  await uploadFixture(stack, apiKey, 'version-1.apk');
  // Online on v1 before v2 comes, so the worker makes the patch from v1, and the notice of v2
  // reaches them at once, before the patch exists.
  const good = await device(apiKey, 'till-delta', v1, md5(v1));
  // Claims v1 but its file is v3: the patch gives other bytes.
  const odd = await device(apiKey, 'till-odd', await fixture('version-3.apk'), md5(v1));
  try {
    await uploadFixture(stack, apiKey, 'version-2.apk');
    await eventually('the v1 → v2 patch', () =>
      deltaCollections(stack.mongo.db).deltas.findOne({ accountId: id, status: 'ready' }),
    );
    for (const d of [good, odd]) {
      await until('the update downloaded', () => d.client.hasPendingUpdate(), 30_000);
      await expect(d.client.applyUpdate()).resolves.toBe(true);
      expect(d.got.map(sha256)).toEqual([sha256(v2)]);
    }
    type Funnel = { transfers: { delta: { updates: number }; fallbacks: Record<string, number> } };
    const api = ownerApi(stack, apiKey);
    const funnel = await eventuallyValue(
      'both updates reported',
      async () => (await api('GET', `/api/v2/apps/${SAMPLE}/funnel?md5=${md5(v2)}`)).json<Funnel>(),
      (f) => f.transfers.delta.updates + (f.transfers.fallbacks['patch-failed'] ?? 0) === 2,
    );
    expect(funnel.transfers.delta.updates).toBe(1);
    // The odd device got the pair's ARDELTA2 (smaller, the Node client applies it): its old
    // ranges do not inflate from a file that is not v1, so the patch is refused (plan).
    expect(funnel.transfers.fallbacks).toEqual({ 'patch-failed': 1 });
  } finally {
    await good.close();
    await odd.close();
  }
});
