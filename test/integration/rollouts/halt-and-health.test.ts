/**
 * Must-holds 2, 3 and 5 of issue 19, on the real stack: a halt gives every device offered and not
 * installed one `giveup` and offers it the previous APK again, and leaves installed devices alone
 * (counted); the health gate, run by the workers' `rollout-health` job, halts a rollout whose new
 * version crashes 5x as often (reports over the 24 h limit included) and advances a healthy one,
 * each decision with its numbers in the API; making another APK current supersedes a rollout.
 */
import { newAccount } from '../../helpers/accounts';
import { eventually, eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import { ownerApi } from '../../helpers/owner-api';
import { evaluateRolloutsOnce, sendCrashes } from '../../helpers/rollouts';
import { connectSse, type SseClient } from '../../helpers/sse';
import { endedByOwner } from '../../helpers/sse-stream-end';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';

jest.setTimeout(240_000);
const SAMPLE = 'dev.apkrelay.sample';
/** Events reach a stream in well under 2 s unloaded; ten times that. */
const EVENT_MS = 20_000;
let stack: TestStack;
const clients: SseClient[] = [];

beforeAll(async () => {
  stack = await startStack({
    rollouts: { evaluationMs: 1_000, soakMs: 0, factor: 2, minExceptions: 10, alpha: 0.01 },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await stack.close();
});

function api(apiKey: string, method: string, p: string, json?: unknown) {
  return ownerApi(stack, apiKey)(method, p, json);
}

async function setUp(plan: number) {
  const account = await newAccount(stack, plan);
  await uploadFixture(stack, account.apiKey, 'version-1.apk');
  await uploadFixture(stack, account.apiKey, 'version-2.apk', { current: false });
  const apks = (await api(account.apiKey, 'GET', `/api/v2/apps/${SAMPLE}`)).json<{
    apks: Array<{ id: string; md5: string; versionCode: number }>;
  }>().apks;
  return {
    ...account,
    v1: apks.find((a) => a.versionCode === 1)!,
    v2: apks.find((a) => a.versionCode === 2)!,
  };
}

async function register(apiKey: string, deviceId: string, installedMd5: string | null) {
  const r = await request(`${stack.urls.push}/api/v2/installations`, {
    method: 'POST',
    json: { package: SAMPLE, deviceId, installedMd5 },
    headers: { authorization: `Bearer ${apiKey}` },
    ca: stack.ca,
  });
  expect(r.status).toBe(200);
}

function stream(apiKey: string, deviceId: string): SseClient {
  const c = connectSse(`${stack.urls.push}/api/v2/stream?package=${SAMPLE}&deviceId=${deviceId}`, {
    ca: stack.ca,
    apiKey,
  });
  clients.push(c);
  return c;
}

const named = (c: SseClient, name: string) => c.events.filter((e) => e.event === name);

test('halt: offered-not-installed devices get one giveup and the previous APK; installed ones are left', async () => {
  const { apiKey, v1, v2 } = await setUp(10);
  // fresh: runs nothing yet (offered v1, then v2 in the rollout); installer: will install v2;
  // outside: not targeted.
  await register(apiKey, 'fresh', null);
  await register(apiKey, 'installer', v1.md5);
  await register(apiKey, 'outside', v1.md5);
  const fresh = stream(apiKey, 'fresh');
  const outside = stream(apiKey, 'outside');
  let installer = stream(apiKey, 'installer');
  expect(JSON.parse((await fresh.next('version', EVENT_MS)).data)).toMatchObject({ md5: v1.md5 });
  await outside.next('status');
  await installer.next('status');

  const started = await api(apiKey, 'POST', `/api/v2/apps/${SAMPLE}/rollout`, {
    versionCode: 2,
    stages: [1, 100],
    targeting: { deviceIds: ['fresh', 'installer'] },
  });
  expect(started.status).toBe(201);
  expect(JSON.parse((await fresh.next('version', EVENT_MS, 2)).data)).toMatchObject({
    md5: v2.md5,
  });
  expect(JSON.parse((await installer.next('version', EVENT_MS)).data)).toMatchObject({
    md5: v2.md5,
  });

  // The installer installs v2 and reconnects reporting it.
  await installer.close();
  await register(apiKey, 'installer', v2.md5);
  installer = stream(apiKey, 'installer');
  await installer.next('status');

  const halted = await api(apiKey, 'POST', `/api/v2/apps/${SAMPLE}/rollout/halt`);
  expect(halted.status).toBe(200);
  expect(halted.json()).toMatchObject({ state: 'halted', percent: 0, installed: 1 });
  // Its offer of v1 was abandoned when the rollout started (PushLink's rule): giveups are that
  // one, then exactly one of v2 now.
  await eventually('the giveup of v2', () => named(fresh, 'giveup').length === 2);
  expect(named(fresh, 'giveup').map((e) => JSON.parse(e.data) as { apkId: string })).toEqual([
    expect.objectContaining({ apkId: v1.id, md5: v1.md5 }),
    expect.objectContaining({ apkId: v2.id, md5: v2.md5 }),
  ]);
  await eventually('the previous APK offered again', () => named(fresh, 'version').length === 3);
  expect(JSON.parse(named(fresh, 'version')[2]!.data)).toMatchObject({ md5: v1.md5 });
  // The same sync reached the installer's and the outside device's streams: nothing for them
  // up to their end, which the owner causes after it (test/helpers/sse-stream-end.ts).
  for (const [deviceId, s] of [
    ['installer', installer],
    ['outside', outside],
  ] as const) {
    const got = await endedByOwner(
      stack,
      { apiKey, package: SAMPLE, deviceId },
      'enabled',
      s,
      EVENT_MS,
    );
    expect({ deviceId, got: got.filter((e) => e !== 'status') }).toEqual({ deviceId, got: [] });
  }
  // Reconnecting is decided again: the previous APK, and no second giveup.
  await fresh.close();
  const back = stream(apiKey, 'fresh');
  expect(JSON.parse((await back.next('version', EVENT_MS)).data)).toMatchObject({ md5: v1.md5 });
  expect(named(back, 'giveup')).toHaveLength(0);
});

const crashes = (apiKey: string, deviceId: string, md5: string, n: number) =>
  sendCrashes(stack, apiKey, SAMPLE, { deviceId, md5 }, n);
const evaluateOnce = () => evaluateRolloutsOnce(stack);

test('health gate: a 5x crash wave halts in one evaluation; a healthy rollout advances', async () => {
  // Plan of 20: the 24 h limit is 40 reports; the wave sends 120 (80 refused, still counted).
  const sick = await setUp(20);
  const olds = ['o1', 'o2', 'o3', 'o4', 'o5'];
  const news = ['n1', 'n2', 'n3', 'n4', 'n5'];
  for (const d of olds) await register(sick.apiKey, d, sick.v1.md5);
  for (const d of news) await register(sick.apiKey, d, sick.v2.md5);
  const start = await api(sick.apiKey, 'POST', `/api/v2/apps/${SAMPLE}/rollout`, {
    versionCode: 2,
    stages: [5, 100],
    targeting: { deviceIds: news },
  });
  expect(start.status).toBe(201);
  for (const d of olds) await crashes(sick.apiKey, d, sick.v1.md5, 4);
  for (const d of news) await crashes(sick.apiKey, d, sick.v2.md5, 20);
  await evaluateOnce();
  const after = await eventuallyValue(
    'the rollout halted',
    async () =>
      (await api(sick.apiKey, 'GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<{
        state: string;
        history: Array<{ action: string; by: string; health: Record<string, number> | null }>;
      }>(),
    (r) => r.state === 'halted',
  );
  const decision = after.history.at(-1)!;
  expect(decision).toMatchObject({ action: 'halt', by: 'health-gate' });
  expect(decision.health).toMatchObject({ verdict: 'halt', newCount: 100, oldCount: 20 });
  expect(decision.health!.ratio).toBeCloseTo(5, 5);
  // The audit log names the health gate, a system actor without an address (issue 20).
  expect(await systemEntries(sick.apiKey)).toEqual([
    {
      action: 'rollout.halted',
      actor: { kind: 'system', id: 'health-gate', name: 'rollout health gate' },
      address: null,
    },
  ]);

  const healthy = await setUp(20);
  for (const d of olds) await register(healthy.apiKey, d, healthy.v1.md5);
  for (const d of news) await register(healthy.apiKey, d, healthy.v2.md5);
  await api(healthy.apiKey, 'POST', `/api/v2/apps/${SAMPLE}/rollout`, {
    versionCode: 2,
    stages: [5, 50, 100],
    targeting: { deviceIds: news },
  });
  for (const d of [...olds, ...news]) {
    await crashes(healthy.apiKey, d, d.startsWith('o') ? healthy.v1.md5 : healthy.v2.md5, 2);
  }
  await evaluateOnce();
  const advanced = (await api(healthy.apiKey, 'GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<{
    state: string;
    percent: number;
    history: Array<{ action: string; by: string; health: Record<string, number> | null }>;
  }>();
  expect(advanced).toMatchObject({ state: 'running', percent: 50 });
  expect(advanced.history.at(-1)).toMatchObject({
    action: 'advance',
    by: 'health-gate',
    health: { verdict: 'healthy', newCount: 10, oldCount: 10 },
  });
  expect((await systemEntries(healthy.apiKey)).map((e) => e.action)).toEqual(['rollout.advanced']);
});

async function systemEntries(apiKey: string) {
  const r = await api(apiKey, 'GET', '/api/v2/audit?actorKind=system');
  return r
    .json<{ entries: Array<{ action: string; actor: unknown; address: unknown }> }>()
    .entries.map(({ action, actor, address }) => ({ action, actor, address }));
}

test('making another APK current supersedes a running rollout', async () => {
  const { apiKey } = await setUp(5);
  await api(apiKey, 'POST', `/api/v2/apps/${SAMPLE}/rollout`, {
    versionCode: 2,
    stages: [10, 100],
  });
  expect(
    (await api(apiKey, 'POST', `/api/v2/apps/${SAMPLE}/rollout`, { versionCode: 2 })).status,
  ).toBe(409);
  expect(
    (await api(apiKey, 'PUT', `/api/v2/apps/${SAMPLE}/current`, { versionCode: 2 })).status,
  ).toBe(200);
  const done = (await api(apiKey, 'GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<{
    state: string;
    percent: number;
  }>();
  expect(done).toMatchObject({ state: 'completed', percent: 100 });
  await api(apiKey, 'POST', `/api/v2/apps/${SAMPLE}/rollout`, {
    versionCode: 1,
    stages: [10, 100],
  });
  expect(
    (await api(apiKey, 'PUT', `/api/v2/apps/${SAMPLE}/current`, { versionCode: 2 })).status,
  ).toBe(200);
  const superseded = (await api(apiKey, 'GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<{
    state: string;
    history: Array<{ action: string }>;
  }>();
  expect(superseded.state).toBe('halted');
  expect(superseded.history.at(-1)).toMatchObject({ action: 'superseded' });

  // An upload made current supersedes a rollout too, and says so as the upload's doing.
  await api(apiKey, 'POST', `/api/v2/apps/${SAMPLE}/rollout`, {
    versionCode: 1,
    stages: [10, 100],
  });
  await uploadFixture(stack, apiKey, 'version-3.apk');
  const byUpload = await eventuallyValue(
    'the upload made current',
    async () => (await rolloutEntries(apiKey)).filter((e) => e.action === 'rollout.halted'),
    (entries) => entries.length === 2,
  );
  // Each change the current APK caused to a rollout is in the audit log once, with its actor
  // (the key that made it, or the upload) and the reason a halt did not come from a halt action.
  const entries = await rolloutEntries(apiKey);
  const shown = entries
    .filter((e) => e.action !== 'rollout.started')
    .map((e) => [e.action, e.actorKind, e.address === null, e.details.state, e.details.reason]);
  expect(shown).toEqual([
    ['rollout.halted', 'system', true, 'halted', 'superseded'],
    ['rollout.halted', 'account-key', false, 'halted', 'superseded'],
    ['rollout.completed', 'account-key', false, 'completed', undefined],
  ]);
  expect(byUpload[0]!.actorId).toMatch(/^upload:[A-Za-z0-9_-]{22}$/);
});

/** The account's rollout entries in the audit log, newest first. */
async function rolloutEntries(apiKey: string) {
  const r = await api(apiKey, 'GET', '/api/v2/audit');
  return r
    .json<{
      entries: Array<{
        action: string;
        actor: { kind: string; id: string };
        address: string | null;
        details: Record<string, unknown>;
      }>;
    }>()
    .entries.filter((e) => e.action.startsWith('rollout.'))
    .map(({ action, actor, address, details }) => ({
      action,
      actorKind: actor.kind,
      actorId: actor.id,
      address,
      details,
    }));
}
