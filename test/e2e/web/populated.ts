/**
 * A populated stack for the every-page browser test and `npm run screenshots`: one account with
 * two apps, 46 registered installations carrying store and region metadata, crash reports in six
 * groups, a webhook endpoint, and a staged rollout of version 2 that the health gate halted by
 * itself on a crash wave (the rollouts tab test's numbers: 20 reports from each new installation,
 * 4 from each old one). Everything goes through the real routes, as devices and owners send it.
 */
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request } from '../../helpers/http';
import { ownerApi } from '../../helpers/owner-api';
import { evaluateRolloutsOnce, sendCrashes } from '../../helpers/rollouts';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { SAMPLE } from '../device-client/helpers';

export const OTHER = 'dev.apkrelay.other';
const STORES = ['north', 'south', 'east'];
const REGIONS = ['eu', 'us'];
/** Other crashes, one group each (a different exception and frame). */
const KINDS = [
  ['java.lang.NullPointerException: name', '\tat dev.apkrelay.sample.Main.onCreate(Main.java:42)'],
  ['java.io.IOException: disk full', '\tat dev.apkrelay.sample.Store.save(Store.java:7)'],
  ['java.lang.OutOfMemoryError', '\tat android.graphics.Bitmap.createBitmap(Bitmap.java:1)'],
  ['java.lang.ArithmeticException: / by zero', '\tat dev.apkrelay.sample.Till.sum(Till.java:9)'],
  ['java.lang.SecurityException: denied', '\tat android.app.ContextImpl.check(ContextImpl.java:3)'],
];

type Apk = { md5: string; sha256: string; versionCode: number };

export interface Populated {
  readonly stack: TestStack;
  readonly email: string;
  readonly apiKey: string;
}

/** The rollouts tab test's health gate: evaluated when the test says, no soak. */
export function startPopulatedStack(): Promise<TestStack> {
  return startStack({
    rollouts: { evaluationMs: 60_000, soakMs: 0, factor: 2, minExceptions: 10, alpha: 0.01 },
  });
}

/** Registers `ids` running `md5`, each with a store and a region. */
async function register(stack: TestStack, apiKey: string, pkg: string, ids: string[], md5: string) {
  for (const [i, deviceId] of ids.entries()) {
    const metadata = { store: STORES[i % STORES.length]!, region: REGIONS[i % REGIONS.length]! };
    const r = await request(`${stack.urls.web}/api/v2/installations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      json: { package: pkg, deviceId, installedMd5: md5, metadata },
      ca: stack.ca,
    });
    if (r.status !== 200) throw new Error(`registration of ${deviceId}: ${r.status} ${r.text}`);
  }
}

async function crash(
  stack: TestStack,
  apiKey: string,
  deviceId: string,
  md5: string,
  stackLines: string[],
) {
  const r = await request(`${stack.urls.admin}/api/v2/exceptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    json: { package: SAMPLE, hash: md5, deviceId, stack: stackLines },
    ca: stack.ca,
  });
  if (r.status !== 202) throw new Error(`exception report refused: ${r.status} ${r.text}`);
}

const ids = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

/** Fills `stack` with the account described above; the rollout is halted when it returns. */
export async function populate(stack: TestStack): Promise<Populated> {
  const { apiKey, email } = await newAccount(stack, 100);
  const api = ownerApi(stack, apiKey);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk', { current: false });
  await uploadFixture(stack, apiKey, 'other-package.apk');
  const { apks } = (await api('GET', `/api/v2/apps/${SAMPLE}`)).json<{ apks: Apk[] }>();
  const v1 = apks.find((a) => a.versionCode === 1)!;
  const v2 = apks.find((a) => a.versionCode === 2)!;
  const other = (await api('GET', `/api/v2/apps/${OTHER}`)).json<{ apks: Apk[] }>().apks[0]!;
  const olds = ids('till', 30);
  const news = ids('kiosk', 10);
  await register(stack, apiKey, SAMPLE, olds, v1.md5);
  await register(stack, apiKey, SAMPLE, news, v2.md5);
  await registerDevices(
    { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: OTHER },
    ids('scale', 6),
    other.md5,
  );
  const hook = await api('POST', '/api/v2/webhooks', {
    url: 'https://hooks.example.invalid/apkrelay',
    events: ['rollout.started', 'rollout.halted', 'exception.group.new'],
  });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${hook.text}`);
  const start = await api('POST', `/api/v2/apps/${SAMPLE}/rollout`, {
    versionCode: 2,
    stages: [25, 50, 100],
    targeting: { deviceIds: news },
  });
  if (start.status !== 201) throw new Error(`rollout: ${start.status} ${start.text}`);
  for (const d of olds.slice(0, 5))
    await sendCrashes(stack, apiKey, SAMPLE, { deviceId: d, md5: v1.md5 }, 4);
  for (const d of news.slice(0, 5))
    await sendCrashes(stack, apiKey, SAMPLE, { deviceId: d, md5: v2.md5 }, 20);
  for (const [i, lines] of KINDS.entries()) {
    for (const d of olds.slice(i, i + 3)) await crash(stack, apiKey, d, v1.md5, lines);
  }
  await evaluateRolloutsOnce(stack);
  const rollout = (await api('GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<{ state: string }>();
  if (rollout.state !== 'halted') throw new Error(`the gate did not halt: ${rollout.state}`);
  return { stack, email, apiKey };
}
