/**
 * Issue 35 items 1 and 2 over real HTTPS on a populated stack: two apps, 14 installations
 * registered through the device route (one last seen four hours ago), 94 real crash reports, a
 * staged rollout the health gate (the stack's workers) halts. The apps list draws each app's fleet
 * and the Rollouts tab its rollout; every chart's summary states numbers written here by hand from
 * the fleet the test builds, and the same numbers as the JSON API (`GET /api/v2/apps`,
 * `GET /api/v2/apps/{package}/rollout`). Halt without its box ticked is refused on the tab and
 * changes nothing; a refused start form comes back with what was typed.
 */
import { Browser } from '../../helpers/browser';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { ownerApi } from '../../helpers/owner-api';
import { evaluateRolloutsOnce, sendCrashes } from '../../helpers/rollouts';
import { startStack, type TestStack } from '../../helpers/stack';
import { uploadFixture } from '../../helpers/uploads';
import { redisKeys } from '../../../shared/redis-keys';
import { closeRedis, createWorkerRedis } from '../../../shared/storage/redis';

jest.setTimeout(180_000);

const SAMPLE = 'dev.apkrelay.sample';
const OTHER = 'dev.apkrelay.other';
const OLDS = ['o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7', 'o8'];
const NEWS = ['n1', 'n2', 'n3', 'n4'];
const HOUR = 3_600_000;

let stack: TestStack;
let jar: Browser;
let api: ReturnType<typeof ownerApi>;
let apiKey: string;
const md5s: Record<number, string> = {};

/** `deviceId` of `pkg` last seen four hours ago: in its document and in Redis. */
async function seenLongAgo(accountId: string, pkg: string, deviceId: string): Promise<void> {
  const at = new Date(Date.now() - 4 * HOUR);
  const installations = stack.mongo.db.collection<{ _id: unknown; deviceId: string }>(
    'installations',
  );
  const doc = await installations.findOne({ accountId, package: pkg, deviceId });
  await installations.updateOne(
    { accountId, package: pkg, deviceId },
    { $set: { lastSeenAt: at } },
  );
  const redis = createWorkerRedis(stack.redisUrl);
  try {
    const key = redisKeys(stack.prefix).installationsSeen(accountId, pkg);
    await redis.zadd(
      key,
      'XX',
      at.getTime(),
      String((doc!._id as { toHexString(): string }).toHexString()),
    );
  } finally {
    await closeRedis(redis);
  }
}

beforeAll(async () => {
  // Online: seen within three heartbeats (3 h here), so no device drifts offline mid-test.
  stack = await startStack({
    trustProxy: ['loopback'],
    heartbeatSeconds: 3600,
    rollouts: { evaluationMs: 60_000, soakMs: HOUR, factor: 2, minExceptions: 10, alpha: 0.01 },
  });
  const account = await newAccount(stack, 100);
  apiKey = account.apiKey;
  api = ownerApi(stack, apiKey);
  await uploadFixture(stack, apiKey, 'version-1.apk');
  await uploadFixture(stack, apiKey, 'version-2.apk', { current: false });
  await uploadFixture(stack, apiKey, 'other-package.apk');
  const apks = (await api('GET', `/api/v2/apps/${SAMPLE}`)).json<{
    apks: Array<{ md5: string; versionCode: number }>;
  }>().apks;
  for (const a of apks) md5s[a.versionCode] = a.md5;
  const other = (await api('GET', `/api/v2/apps/${OTHER}`)).json<{
    apks: Array<{ md5: string }>;
  }>();
  const target = { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: SAMPLE };
  await registerDevices(target, OLDS, md5s[1]);
  await registerDevices(target, NEWS, md5s[2]);
  await registerDevices({ ...target, package: OTHER }, ['x1', 'x2'], other.apks[0]!.md5);
  await seenLongAgo(account.id, SAMPLE, 'o8');
  jar = new Browser(stack, '198.51.100.7');
  expect((await jar.logIn(account.email, 'password-123')).status).toBe(303);
});
afterAll(() => stack?.close());

const unescape = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The summary of the chart `kind` in `html` (the first one). */
function summaryOf(html: string, kind: string): string {
  const figure = html.slice(html.indexOf(`data-chart="${kind}"`));
  const m = /<figcaption class="chart-summary">([^<]*)<\/figcaption>/.exec(figure);
  if (!m) throw new Error(`no ${kind} chart`);
  return unescape(m[1]!.replace(/\s+/g, ' ').trim());
}

/** An app's card on the apps list. */
async function card(pkg: string): Promise<string> {
  const page = await jar.get('/ui/apps');
  expect(page.status).toBe(200);
  const start = page.text.indexOf(`<article class="fleet-app" data-package="${pkg}">`);
  expect(start).toBeGreaterThanOrEqual(0);
  return page.text.slice(start, page.text.indexOf('</article>', start));
}

interface Fleet {
  installations: number;
  online: number;
  offline: number;
  versions: Array<{ versionCode: number | null; count: number; ahead: boolean }>;
  rollout: { state: string; percent: number; haltReason: string | null } | null;
  unhandledHourly: number[];
}

async function fleetOf(pkg: string): Promise<Fleet> {
  const { apps } = (await api('GET', '/api/v2/apps')).json<{
    apps: Array<{ package: string; fleet: Fleet }>;
  }>();
  return apps.find((a) => a.package === pkg)!.fleet;
}

/** The bar's summary as the JSON's numbers write it (labels by hand: "2.0 (2)"). */
function barFromJson(f: Fleet): string {
  const parts = f.versions.map(
    (v) =>
      `${v.versionCode === 2 ? '2.0 (2)' : '1.0 (1)'}${v.ahead ? ', ahead' : ''} on ${v.count} (${Math.round((100 * v.count) / f.installations)} %)`,
  );
  return `${f.installations} installations: ${parts.join(', ')}. ${f.online} online, ${f.offline} offline.`;
}

test('the apps list draws each app’s fleet: versions (a version above the current one is ahead), online, offline', async () => {
  const sample = await card(SAMPLE);
  expect(summaryOf(sample, 'fleet-versions')).toBe(
    '12 installations: 2.0 (2), ahead on 4 (33 %), 1.0 (1) on 8 (67 %). 11 online, 1 offline.',
  );
  const json = await fleetOf(SAMPLE);
  expect(summaryOf(sample, 'fleet-versions')).toBe(barFromJson(json));
  expect(json.rollout).toBeNull();
  expect(sample).not.toContain('rollout-badge');
  expect(summaryOf(sample, 'crash-sparkline')).toMatch(
    /^0 unhandled crash reports in the last 24 h, at most 0 in one hour; by hour, oldest first: (0, ){23}0\.$/,
  );
  const other = await card(OTHER);
  expect(summaryOf(other, 'fleet-versions')).toBe(
    '2 installations: 1.0 (1) on 2 (100 %). 2 online, 0 offline.',
  );
});

const tab = `/ui/apps/${SAMPLE}/rollouts`;

interface Rollout {
  state: string;
  offered: number;
  installations: number;
  installed: number;
  stageStartedAt: string;
  nextStageAt: string | null;
  haltReason: string | null;
  history: Array<{
    action: string;
    health: {
      newCount: number;
      newHours: number;
      oldCount: number;
      oldHours: number;
      ratio: number | null;
    } | null;
  }>;
}

test('the Rollouts tab: stages, "N of M offered", the next stage; an unconfirmed halt is refused on the tab', async () => {
  // The form offers the one APK that is not current: 2.0.
  const sha256 = /<option value="([0-9a-f]{64})"/.exec((await jar.get(tab)).text)![1]!;
  const ok = await jar.form(tab, { sha256, stages: '5, 100', deviceIds: NEWS.join('\n') }, tab);
  expect(ok.status).toBe(303);

  const page = (await jar.get(tab)).text;
  const json = (await api('GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<Rollout>();
  expect(summaryOf(page, 'rollout-stages')).toBe('Stage 1 of 2 (5 %), running; stages 5 %, 100 %.');
  const reach = (name: string) => new RegExp(`data-reach="${name}">([^<]*)<`).exec(page)?.[1];
  // The four named devices of twelve; they already run 2.0.
  expect([reach('offered'), reach('installations'), reach('installed')]).toEqual(['4', '12', '4']);
  expect([json.offered, json.installations, json.installed]).toEqual([4, 12, 4]);
  // Next stage: the stage start plus the soak (1 h), as the JSON says.
  expect(Date.parse(json.nextStageAt!) - Date.parse(json.stageStartedAt)).toBe(HOUR);
  expect(page).toMatch(
    new RegExp(
      `Next stage: <span data-reach="next">100</span> % at\\s*<time datetime="${json.nextStageAt}"`,
    ),
  );

  const halt = await jar.form(`${tab}/halt`, {}, tab);
  expect(halt.status).toBe(400);
  expect(halt.text).toContain('Tick the box to confirm first: nothing was done.');
  expect(halt.text).toContain('data-chart="rollout-stages"');
  expect((await api('GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<Rollout>().state).toBe(
    'running',
  );
  const badge = await card(SAMPLE);
  expect(badge).toContain('<span class="badge badge-running">running at 5 %</span>');
});

test('the gate halts a crash wave: the rates chart, the halt reason, the badge and the sparkline', async () => {
  for (const d of NEWS)
    await sendCrashes(stack, apiKey, SAMPLE, { deviceId: d, md5: md5s[2]! }, 20);
  for (const d of OLDS.slice(0, 7)) {
    await sendCrashes(stack, apiKey, SAMPLE, { deviceId: d, md5: md5s[1]! }, 2);
  }
  await evaluateRolloutsOnce(stack);

  const json = (await api('GET', `/api/v2/apps/${SAMPLE}/rollout`)).json<Rollout>();
  expect(json.state).toBe('halted');
  // 80 crashes on 4 online installations against 14 on 7 (o8 is offline): 10 times the rate.
  const reason = 'Halted by the health gate: 2.0 crashed 10× as often as 1.0.';
  expect(json.haltReason).toBe(reason);
  const page = (await jar.get(tab)).text;
  expect(summaryOf(page, 'rollout-stages')).toBe(
    'Halted at stage 1 of 2 (5 %); stages 5 %, 100 %.',
  );
  expect(page).toContain(`<p class="halt-reason" data-reach="halt-reason">${reason}</p>`);
  const h = json.history.find((e) => e.action === 'halt')!.health!;
  expect([h.newCount, h.oldCount]).toEqual([80, 14]);
  const chart =
    /^Crashes per installation-hour at 1 evaluation: 2\.0 \(2\): (\S+); 1\.0 \(1\): (\S+); halt threshold \(2× 1\.0 \(1\)\): (\S+)\.$/.exec(
      summaryOf(page, 'rollout-crash-rates'),
    );
  expect(chart).not.toBeNull();
  const [drawnNew, drawnOld, drawnThreshold] = chart!.slice(1).map(Number);
  const near = (drawn: number, exact: number) =>
    expect(Math.abs(drawn - exact) / exact).toBeLessThan(0.005);
  near(drawnNew!, h.newCount / h.newHours);
  near(drawnOld!, h.oldCount / h.oldHours);
  near(drawnThreshold!, (2 * h.oldCount) / h.oldHours);

  const sample = await card(SAMPLE);
  expect(sample).toContain('<span class="badge badge-halted">halted</span>');
  expect(sample).toContain(`<p class="halt-reason">${reason}</p>`);
  expect(summaryOf(sample, 'fleet-versions')).toBe(
    '12 installations: 2.0 (2), ahead on 4 (33 %), 1.0 (1) on 8 (67 %). 11 online, 1 offline.',
  );
  const fleet = await fleetOf(SAMPLE);
  expect(fleet.rollout).toEqual({
    state: 'halted',
    percent: 0,
    version: '2.0 (2)',
    haltReason: reason,
  });
  const spark = summaryOf(sample, 'crash-sparkline');
  expect(spark).toMatch(/^94 unhandled crash reports in the last 24 h, at most (\d+) in one hour/);
  expect(fleet.unhandledHourly.reduce((a, b) => a + b, 0)).toBe(94);
  expect(spark).toContain(`by hour, oldest first: ${fleet.unhandledHourly.join(', ')}.`);
});

test('a refused start form comes back on the tab with what was typed', async () => {
  const sha256 = /<option value="([0-9a-f]{64})"/.exec((await jar.get(tab)).text)![1]!;
  const fields = {
    sha256,
    stages: '5, 50',
    metadataKey: 'store',
    metadataValues: 'north, south',
    deviceIds: 'n1\nn2',
  };
  const refused = await jar.form(tab, fields, tab);
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('id="rollout-problem">stages: the last one must be 100</p>');
  expect(refused.text).toMatch(/name="stages"[^>]*value="5, 50"/);
  expect(refused.text).toMatch(/name="metadataKey"[^>]*value="store"/);
  expect(refused.text).toMatch(/name="metadataValues"[^>]*value="north, south"/);
  expect(refused.text).toContain('>n1\nn2</textarea>');
  expect(refused.text).toContain(`<option value="${sha256}" selected>`);
});
