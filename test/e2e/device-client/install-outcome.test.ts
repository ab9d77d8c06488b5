/**
 * The TypeScript device client reports its installer's outcome as the Android library does
 * (`lastInstall` on the heartbeat, docs/push.md), and the server counts it in the APK's install
 * funnel (docs/funnel.md): one device's installer refuses the update with an OS status and
 * message, another's installs it. Real clients, real stack, real heartbeats.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClientEvent } from '../../../device-client/core/events';
import { noErrorCapture } from '../../../device-client/node/adapters';
import { createNodeClient } from '../../../device-client/node/index';
import { nodeTransport } from '../../../device-client/node/transport';
import { newAccount } from '../../helpers/accounts';
import { eventuallyValue } from '../../helpers/eventually';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { md5Of, SAMPLE, until } from './helpers';

jest.setTimeout(120_000);
let stack: TestStack;
let tmp: string;
beforeAll(async () => {
  // Heartbeats every second: the outcome rides on the first one after the install.
  stack = await startStack({ heartbeatSeconds: 1 });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-install-outcome-'));
});
afterAll(async () => {
  await stack?.close();
  await rm(tmp, { recursive: true, force: true });
});

const REFUSAL = 'INSTALL_FAILED_INSUFFICIENT_STORAGE: not enough space';

async function device(apiKey: string, name: string, refuse: boolean) {
  const events: ClientEvent[] = [];
  const transport = nodeTransport({ ca: stack.ca });
  const client = createNodeClient({ applyIntervalMs: 60_000 });
  client.on((e) => events.push(e));
  client.setCurrentStrategy('CUSTOM');
  client.start({
    apiKey,
    deviceId: name,
    packageName: SAMPLE,
    pushUrl: stack.urls.push,
    baseUrl: stack.urls.web,
    installedMd5: await md5Of('version-1.apk'),
    storageDir: path.join(tmp, name),
    transport,
    errorCapture: noErrorCapture,
    logger: { log: () => undefined },
    onInstall: () => {
      if (refuse) throw Object.assign(new Error(REFUSAL), { osStatus: 4 });
    },
  });
  await until(`${name} registered`, () => events.some((e) => e.event === 'registered'));
  return {
    client,
    events,
    async close() {
      await client.close(1_000);
      transport.destroy();
    },
  };
}

test('the installer’s failure (OS status, message) and success reach the funnel', async () => {
  const { apiKey } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  const refusing = await device(apiKey, 'till-refusing', true);
  const installing = await device(apiKey, 'till-installing', false);
  try {
    await uploadFixture(stack, apiKey, 'version-2.apk');
    const v2 = await md5Of('version-2.apk');
    for (const d of [refusing, installing]) {
      await until('the update downloaded', () => d.client.hasPendingUpdate(), 20_000);
    }
    await expect(refusing.client.applyUpdate()).resolves.toBe(false);
    await expect(installing.client.applyUpdate()).resolves.toBe(true);

    const api = ownerApi(stack, apiKey);
    type Funnel = {
      counts: Record<string, number>;
      installations: Array<{
        deviceId: string;
        installedAt: string | null;
        failedAt: string | null;
        failure: { osStatus: number | null; message: string | null } | null;
      }>;
    };
    const funnel = await eventuallyValue(
      'the outcomes counted',
      async () => (await api('GET', `/api/v2/apps/${SAMPLE}/funnel?md5=${v2}`)).json<Funnel>(),
      (f) => f.counts.failed === 1 && f.counts.installed === 1,
    );
    expect(funnel.counts).toEqual({ offered: 2, downloaded: 2, installed: 1, failed: 1 });
    const row = (id: string) => funnel.installations.find((i) => i.deviceId === id)!;
    const refused = row('till-refusing');
    const installed = row('till-installing');
    expect(refused.failure).toEqual({ osStatus: 4, message: REFUSAL });
    expect([refused.installedAt === null, refused.failedAt !== null]).toEqual([true, true]);
    expect(installed.failure).toBeNull();
    expect([installed.installedAt !== null, installed.failedAt === null]).toEqual([true, true]);
  } finally {
    await refusing.close();
    await installing.close();
  }
});
