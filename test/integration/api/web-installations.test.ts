/**
 * Issue 35 #4 over real HTTPS on a populated stack: real APKs uploaded (1.0 and 2.0 current, 3.0
 * not: its devices are "ahead"), seven devices registered with metadata and heard from at chosen
 * times through the device routes, one failed install and one crash report sent as a device
 * sends them. The Installations tab's summary strip, filters, sorts and paging, and one
 * installation's page (history with the OS message, its crash report linked) show what the JSON
 * routes give, and both equal a table written by hand. Another account gets 404.
 */
import { newAccount } from '../../helpers/accounts';
import { Browser } from '../../helpers/browser';
import { eventually } from '../../helpers/eventually';
import type { Reply } from '../../helpers/http';
import { ownerApi } from '../../helpers/owner-api';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixtureMd5, uploadFixture } from '../../helpers/uploads';
import { stackTrace } from '../exceptions/fixtures';

jest.setTimeout(180_000);

const PKG = 'dev.apkrelay.sample';
const MIN = 60_000;
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
let clockMs = T0 - 60 * MIN;
let stack: TestStack;
beforeAll(async () => {
  // Heartbeat 60 s: online means seen in the last 180 s.
  stack = await startStack({
    now: () => new Date(clockMs),
    trustProxy: ['loopback'],
    heartbeatSeconds: 60,
  });
});
afterAll(() => stack?.close());

/** The owner's JSON API: a GET, or a POST of `json` (device routes take the same key). */
function api(apiKey: string, path: string, json?: unknown): Promise<Reply> {
  return ownerApi(stack, apiKey)(json === undefined ? 'GET' : 'POST', path, json);
}

async function device(apiKey: string, path: string, body: Record<string, unknown>) {
  const reply = await api(apiKey, path, { package: PKG, ...body });
  expect([reply.status, path]).toEqual([path.endsWith('exceptions') ? 202 : 200, path]);
}

let owner: { apiKey: string; email: string };
const md5 = { v1: '', v2: '', v3: '' };

/**
 * device: version, store, last heard from (minutes before T0; null: only its registration, 60
 * minutes before T0).
 */
const FLEET: Array<[string, 'v1' | 'v2' | 'v3' | null, string, number | null]> = [
  ['a1', 'v1', 'north', 0],
  ['a2', 'v2', 'south', 10],
  ['a3', 'v2', 'north', 1],
  ['b1', 'v3', 'north', 2],
  ['b2', 'v1', 'south', null],
  ['c1', 'v3', 'south', 30],
  ['c2', null, 'north', 5 / 60],
];

beforeAll(async () => {
  owner = await newAccount(stack, 20);
  await uploadFixture(stack, owner.apiKey, 'version-1.apk');
  await uploadFixture(stack, owner.apiKey, 'version-2.apk');
  await uploadFixture(stack, owner.apiKey, 'version-3.apk', { current: false });
  md5.v1 = await fixtureMd5('version-1.apk');
  md5.v2 = await fixtureMd5('version-2.apk');
  md5.v3 = await fixtureMd5('version-3.apk');
  for (const [deviceId, version, store] of FLEET) {
    await device(owner.apiKey, '/api/v2/installations', {
      deviceId,
      ...(version ? { installedMd5: md5[version] } : {}),
      metadata: { store },
    });
  }
  // b1 tried 2.0 (a downgrade: the OS refused it) and crashed on 3.0, two minutes before T0.
  clockMs = T0 - 2 * MIN - 1000;
  await device(owner.apiKey, '/api/v2/exceptions', {
    deviceId: 'b1',
    hash: md5.v3,
    stack: stackTrace('b1 crash'),
  });
  const beats = [...FLEET].filter(([, , , ago]) => ago !== null).sort((x, y) => y[3]! - x[3]!);
  for (const [deviceId, version, , ago] of beats) {
    clockMs = T0 - ago! * MIN;
    await device(owner.apiKey, '/api/v2/heartbeat', {
      deviceId,
      ...(version ? { installedMd5: md5[version] } : {}),
      ...(deviceId === 'b1'
        ? {
            lastDownloadedMd5: md5.v2,
            lastInstall: {
              md5: md5.v2,
              versionCode: 2,
              status: 'failure',
              osStatus: 4,
              message: 'INSTALL_FAILED_VERSION_DOWNGRADE',
            },
          }
        : {}),
    });
  }
  clockMs = T0;
  await eventually(
    'the crash report stored',
    async () =>
      (await stack.mongo.db.collection('exceptions').countDocuments({ package: PKG })) === 1,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
});

interface ListJson {
  page: number;
  pageSize: number;
  total: number;
  installations: Array<{ deviceId: string; online: boolean; ahead: boolean }>;
  summary: {
    total: number;
    online: number;
    offline: number;
    versions: Array<{ versionCode: number | null; installations: number }>;
    ahead: string[];
  };
}

const list = async (query: string) => {
  const reply = await api(owner.apiKey, `/api/v2/apps/${PKG}/installations?${query}`);
  expect(reply.status).toBe(200);
  return reply.json<ListJson>();
};
const ids = (page: ListJson) => page.installations.map((i) => i.deviceId);

test('the summary of the whole fleet: online, offline, per version, ahead devices', async () => {
  const { summary } = await list('status=online'); // a filter does not narrow the summary
  expect(summary).toEqual({
    total: 7,
    online: 4, // a1, a3, b1, c2: seen in the last 180 s
    offline: 3,
    versions: [
      { md5: md5.v3, versionCode: 3, versionName: '3.0', installations: 2 },
      { md5: md5.v2, versionCode: 2, versionName: '2.0', installations: 2 },
      { md5: md5.v1, versionCode: 1, versionName: '1.0', installations: 2 },
      { md5: null, versionCode: null, versionName: null, installations: 1 },
    ],
    ahead: ['b1', 'c1'],
  });
});

test.each([
  ['', ['a1', 'c2', 'a3', 'b1', 'a2', 'c1', 'b2']],
  ['sort=version', ['b1', 'c1', 'a2', 'a3', 'a1', 'b2', 'c2']],
  ['sort=deviceId', ['a1', 'a2', 'a3', 'b1', 'b2', 'c1', 'c2']],
  ['version=2', ['a3', 'a2']],
  ['meta=store%3Dnorth', ['a1', 'c2', 'a3', 'b1']],
  ['version=3&meta=store%3Dsouth', ['c1']],
  ['status=online&sort=deviceId', ['a1', 'a3', 'b1', 'c2']],
  ['status=offline&sort=version', ['c1', 'a2', 'b2']],
  ['version=9', []],
])('GET installations?%s lists %p', async (query, expected) => {
  const page = await list(query);
  expect(ids(page)).toEqual(expected);
  expect(page.total).toBe(expected.length);
});

test('pages of 3 by device id: 7 installations on 3 pages', async () => {
  const pages = await Promise.all([1, 2, 3].map((n) => list(`sort=deviceId&pageSize=3&page=${n}`)));
  expect(pages.map(ids)).toEqual([['a1', 'a2', 'a3'], ['b1', 'b2', 'c1'], ['c2']]);
  expect(pages.map((p) => p.total)).toEqual([7, 7, 7]);
});

test.each([
  ['version=abc', 'version must be a versionCode (digits)'],
  ['meta=store', 'meta must be key=value'],
  ['sort=color', 'sort must be lastSeen, version or deviceId'],
])('a bad filter (%s) is refused with VALIDATION_FAILED', async (query, message) => {
  const reply = await api(owner.apiKey, `/api/v2/apps/${PKG}/installations?${query}`);
  expect(reply.status).toBe(400);
  expect(reply.json()).toEqual({ error: { code: 'VALIDATION_FAILED', message } });
});

async function ownerBrowser(email: string): Promise<Browser> {
  const browser = new Browser(stack, '198.51.100.36');
  expect((await browser.logIn(email, 'password-123')).status).toBe(303);
  return browser;
}

const flat = (text: string) => text.replace(/\s+/g, ' ');
/** The device ids of the page's rows, in order. */
const rowIds = (page: string) =>
  [...page.matchAll(/<tr> <td><a href="\/ui\/apps\/[^"]+\/installations\/([^"]+)">/g)].map(
    (m) => m[1],
  );

test('the tab: its strip says the JSON summary, its form filters, sorts and pages', async () => {
  const browser = await ownerBrowser(owner.email);
  const base = `/ui/apps/${PKG}/installations`;
  const whole = flat((await browser.get(base)).text);
  expect(whole).toContain('<strong data-summary="total">7</strong> installations');
  expect(whole).toContain('<strong data-summary="online">4</strong> online');
  expect(whole).toContain('<strong data-summary="offline">3</strong> offline');
  expect(whole).toMatch(/3\.0 \(3\)<\/a>: <strong>2<\/strong> \(29 %\)/);
  expect(whole).toMatch(/unknown version: <strong>1<\/strong> \(14 %\)/);
  expect(whole).toMatch(/data-summary="ahead">[^<]*: b1, c1 </);
  expect(rowIds(whole)).toEqual(['a1', 'c2', 'a3', 'b1', 'a2', 'c1', 'b2']);
  // Status dots and relative times: a1 beat at T0, b2 was last heard from at its registration.
  expect(whole).toMatch(/dot-online" aria-hidden="true">●<\/span> enabled \/ online/);
  expect(whole).toContain('>just now</time');
  expect(whole).toContain('>1 h ago</time');

  const filtered = flat((await browser.get(`${base}?meta=store%3Dnorth&sort=deviceId`)).text);
  expect(rowIds(filtered)).toEqual(['a1', 'a3', 'b1', 'c2']);
  expect(filtered).toContain('value="store=north"');
  const paged = flat((await browser.get(`${base}?sort=deviceId&pageSize=3&page=2`)).text);
  expect(rowIds(paged)).toEqual(['b1', 'b2', 'c1']);
  expect(paged).toContain(`<a href="${base}?sort=deviceId&amp;pageSize=3&amp;page=1" rel="prev"`);
  expect(paged).toContain(`<a href="${base}?sort=deviceId&amp;pageSize=3&amp;page=3" rel="next"`);
  const refused = await browser.get(`${base}?version=abc`);
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('version must be a versionCode (digits)');
});

interface DetailJson {
  installation: { deviceId: string; ahead: boolean; online: boolean };
  history: Array<{
    versionCode: number | null;
    stage: string;
    at: string;
    osStatus: number | null;
    message: string | null;
  }>;
  reports: Array<{ id: string; version: string; handled: boolean; receivedAt: string }>;
}

test("an installation's page: history with the OS message, its crash report linked", async () => {
  const reply = await api(owner.apiKey, `/api/v2/apps/${PKG}/installations/b1`);
  expect(reply.status).toBe(200);
  const detail = reply.json<DetailJson>();
  expect(detail.installation).toMatchObject({ deviceId: 'b1', ahead: true, online: true });
  expect(detail.history).toEqual([
    {
      md5: md5.v3,
      versionCode: 3,
      versionName: '3.0',
      stage: 'installed',
      at: new Date(T0 - 60 * MIN).toISOString(),
      osStatus: null,
      message: null,
    },
    {
      md5: md5.v2,
      versionCode: 2,
      versionName: '2.0',
      stage: 'downloaded',
      at: new Date(T0 - 2 * MIN).toISOString(),
      osStatus: null,
      message: null,
    },
    {
      md5: md5.v2,
      versionCode: 2,
      versionName: '2.0',
      stage: 'failed',
      at: new Date(T0 - 2 * MIN).toISOString(),
      osStatus: 4,
      message: 'INSTALL_FAILED_VERSION_DOWNGRADE',
    },
  ]);
  expect(detail.reports).toHaveLength(1);
  expect(detail.reports[0]).toMatchObject({
    version: '3.0 (3)',
    handled: false,
    receivedAt: new Date(T0 - 2 * MIN - 1000).toISOString(),
  });

  const browser = await ownerBrowser(owner.email);
  const page = flat((await browser.get(`/ui/apps/${PKG}/installations/b1`)).text);
  expect(page).toContain('Installation <code>b1</code>');
  expect(page).toContain('nothing: ahead of the APK it would be offered');
  expect(page).toMatch(
    /data-last-install="failure"> Failed to install versionCode 2 <time[^>]*>2 min ago<\/time > · OS status 4 · <q>INSTALL_FAILED_VERSION_DOWNGRADE<\/q>/,
  );
  expect(page).toMatch(
    /<tr data-stage="failed"> <td><time[^>]*>2 min ago<\/time ><\/td> <td> 2\.0 \(2\) <\/td> <td>failed<\/td> <td>4<\/td> <td>INSTALL_FAILED_VERSION_DOWNGRADE<\/td>/,
  );
  expect(page).toContain(
    `<a href="/ui/apps/${PKG}/exceptions/${encodeURIComponent(detail.reports[0]!.id)}"><code>java.lang.IllegalStateException: b1 crash</code></a>`,
  );
  // The link leads to the report.
  const report = await browser.get(
    `/ui/apps/${PKG}/exceptions/${encodeURIComponent(detail.reports[0]!.id)}`,
  );
  expect(report.status).toBe(200);
  expect(report.text).toContain('b1 crash');
});

test('another account gets 404 for the installation page and route, even with the same package', async () => {
  const other = await newAccount(stack, 5);
  await uploadFixture(stack, other.apiKey, 'version-1.apk');
  const browser = await ownerBrowser(other.email);
  expect((await browser.get(`/ui/apps/${PKG}/installations/b1`)).status).toBe(404);
  expect((await api(other.apiKey, `/api/v2/apps/${PKG}/installations/b1`)).status).toBe(404);
  const its = (await api(other.apiKey, `/api/v2/apps/${PKG}/installations`)).json<ListJson>();
  expect([its.total, its.summary.total]).toEqual([0, 0]);
  const stranger = await newAccount(stack, 1);
  expect((await api(stranger.apiKey, `/api/v2/apps/${PKG}/installations/b1`)).status).toBe(404);
});
