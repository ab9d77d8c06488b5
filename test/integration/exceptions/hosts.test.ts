/**
 * Issue 16: devices reach only the web and push hosts (spec section 8), so both exception routes
 * answer there exactly as on the admin host. Over real HTTPS to each of the three listeners: the
 * same status, body and headers, one budget shared by all hosts, every accepted report stored,
 * the route's own body limit (above the API's 64 KB JSON default) on every host, one failed-key
 * throttle across hosts, and a request-log line naming the host.
 */
import { randomBytes } from 'node:crypto';
import type { Host } from '../../../api/route-table';
import { EXCEPTION_TEXT } from '../../../shared/exceptions/verdicts';
import { createLogger } from '../../../shared/log';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request, type Reply } from '../../helpers/http';
import { startStack, type TestStack } from '../../helpers/stack';
import { encodeForm, eventually, postForm, seedApp, stackTrace, type SeededApp } from './fixtures';
import { exceptionsCollections } from '../../../shared/exceptions/collections';

jest.setTimeout(120_000);

const HOSTS: readonly Host[] = ['admin', 'web', 'push'];
const MAX_BYTES = 256 * 1024;
const captured: string[] = [];
let stack: TestStack;

beforeAll(async () => {
  const log = createLogger(
    'info',
    { role: 'test' },
    { write: (line: string) => captured.push(line) },
  );
  stack = await startStack({ log, maxExceptionBytes: MAX_BYTES });
});
afterAll(() => stack.close());

const wrongKey = () => `ak_${randomBytes(24).toString('base64url')}`;
/** Varies between any two replies, whatever the host. */
/**
 * Headers that differ by design: per request, or per host (HSTS is sent by the admin and web hosts,
 * whose pages browsers open, not by the push host; its own test is transport-hardening).
 */
const VARYING = [
  'date',
  'x-request-id',
  'x-exception-remaining',
  'connection',
  'keep-alive',
  'strict-transport-security',
];

function stable(reply: Reply): Record<string, unknown> {
  const headers = Object.fromEntries(
    Object.entries(reply.headers).filter(([name]) => !VARYING.includes(name)),
  );
  return { status: reply.status, headers };
}

function form(host: Host, apiKey: string, app: SeededApp, requestId?: string): Promise<Reply> {
  return request(`${stack.urls[host]}/exception`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
      ...(requestId ? { 'x-request-id': requestId } : {}),
    },
    body: encodeForm({
      package: app.package,
      api_key: apiKey,
      hash: app.md5,
      deviceId: `device-on-${host}`,
      st: stackTrace(`form via ${host}`),
      lc: ['a log line'],
    }),
    ca: stack.ca,
  });
}

function json(
  host: Host,
  apiKey: string,
  app: SeededApp,
  extra: Record<string, unknown> = {},
): Promise<Reply> {
  return request(`${stack.urls[host]}/api/v2/exceptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    json: {
      package: app.package,
      hash: app.md5,
      deviceId: `device-on-${host}`,
      stack: stackTrace(`json via ${host}`),
      ...extra,
    },
    ca: stack.ca,
  });
}

interface VerdictBody {
  status: string;
  reason: string | null;
  reportId?: string;
  budget: { limit: number; remaining: number; freesAt: string | null } | null;
}

/** The JSON verdict without what differs from one report to the next (its id, the budget left). */
function sameness(reply: Reply): Record<string, unknown> {
  const { reportId, budget, ...body } = reply.json<VerdictBody>();
  return {
    ...stable(reply),
    body,
    reportId: typeof reportId,
    budget: budget && { limit: budget.limit, freesAt: budget.freesAt },
  };
}

test('the PushLink form and the JSON route answer alike on admin, web and push, and every report is stored', async () => {
  const account = await newAccount(stack, 10); // 10 installations → 20 reports per 24 h
  const app = await seedApp(stack, account.id);
  await registerDevices(
    { baseUrl: stack.urls.web, ca: stack.ca, apiKey: account.apiKey, ...app },
    HOSTS.map((host) => `device-on-${host}`),
  );
  // A screenshot that takes the JSON body past the API's 64 KB default, within the route's limit.
  // It starts as a JPEG does (FF D8 FF): other screenshots are dropped at intake.
  const jpeg = randomBytes(96 * 1024);
  jpeg.set([0xff, 0xd8, 0xff, 0xe0]);
  const screen = jpeg.toString('base64');
  const forms: Reply[] = [];
  const jsons: Reply[] = [];
  for (const host of HOSTS) {
    forms.push(await form(host, account.apiKey, app, `hosts-test-form-${host}`));
    jsons.push(await json(host, account.apiKey, app, { screen }));
  }

  for (const reply of forms) {
    expect({ status: reply.status, text: reply.text }).toEqual({
      status: 200,
      text: EXCEPTION_TEXT.REGISTERED,
    });
  }
  expect(forms.map(stable)).toEqual(HOSTS.map(() => stable(forms[0]!)));
  for (const reply of jsons) expect([reply.status, reply.text]).toEqual([202, expect.any(String)]);
  expect(jsons.map(sameness)).toEqual(HOSTS.map(() => sameness(jsons[0]!)));
  expect(jsons[0]!.json()).toMatchObject({ status: 'REGISTERED', reason: null, resent: false });

  // One budget for the app, whichever host took the report: form, JSON, form, JSON...
  const remaining = HOSTS.flatMap((_, i) => [forms[i]!, jsons[i]!]).map((r) =>
    Number(r.headers['x-exception-remaining']),
  );
  expect(remaining).toEqual([19, 18, 17, 16, 15, 14]);
  expect(jsons.map((r) => r.json<VerdictBody>().budget?.remaining)).toEqual([18, 16, 14]);

  // Stored: each JSON report under its id, with its screenshot; each form report by its stack.
  const { reports } = exceptionsCollections(stack.mongo.db);
  expect(await eventually(() => reports.countDocuments({ accountId: account.id }), 6)).toBe(6);
  for (const [i, host] of HOSTS.entries()) {
    const stored = await reports.findOne({ _id: jsons[i]!.json<VerdictBody>().reportId! });
    expect(stored).toMatchObject({
      deviceId: `device-on-${host}`,
      stack: stackTrace(`json via ${host}`),
      screenshotBytes: 96 * 1024,
    });
    const fromForm = await reports.findOne({
      accountId: account.id,
      stack: stackTrace(`form via ${host}`),
    });
    expect(fromForm).toMatchObject({ deviceId: `device-on-${host}`, log: ['a log line'] });
  }

  // The request log: one line per report, naming the host that took it.
  for (const host of HOSTS) {
    const line = captured
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.requestId === `hosts-test-form-${host}`);
    expect(line).toMatchObject({ host, method: 'POST', path: '/exception', status: 200 });
  }
});

test('refusals are the same on every host: a wrong key, a report past the size limit', async () => {
  const account = await newAccount(stack);
  const app = await seedApp(stack, account.id);
  const huge = randomBytes(MAX_BYTES).toString('base64');
  const replies = async (send: (host: Host) => Promise<Reply>) => {
    const out: Reply[] = [];
    for (const host of HOSTS) out.push(await send(host));
    return out;
  };
  const cases: Record<string, Reply[]> = {
    formWrongKey: await replies((h) => form(h, wrongKey(), app)),
    jsonWrongKey: await replies((h) => json(h, wrongKey(), app)),
    formTooLarge: await replies((h) =>
      postForm(
        stack.urls[h],
        stack.ca,
        encodeForm({
          package: app.package,
          api_key: account.apiKey,
          hash: app.md5,
          deviceId: 'd',
          st: ['x'],
          screen: huge,
        }),
      ),
    ),
    jsonTooLarge: await replies((h) => json(h, account.apiKey, app, { screen: huge })),
  };
  const seen = (r: Reply) => ({ ...stable(r), text: r.text });
  for (const [name, got] of Object.entries(cases)) {
    expect({ name, replies: got.map(seen) }).toEqual({
      name,
      replies: HOSTS.map(() => seen(got[0]!)),
    });
  }
  expect(cases.formWrongKey![0]!.text).toBe(EXCEPTION_TEXT.EXCEPTION_API_KEY_INVALID);
  expect(cases.jsonWrongKey![0]!.status).toBe(401);
  expect(cases.formTooLarge![0]!.text).toMatch(/^Exception sent but rejected: Invalid report\./);
  expect(cases.jsonTooLarge![0]!.status).toBe(413);
  const { reports } = exceptionsCollections(stack.mongo.db);
  expect(await reports.countDocuments({ accountId: account.id })).toBe(0);
});

test('one failed-key throttle for all hosts: failures spread over the three count together', async () => {
  const stale = wrongKey();
  const account = await newAccount(stack);
  const app = await seedApp(stack, account.id);
  // The per-key limit is 20 failures (DEFAULT_AUTH_FAILURE_LIMITS), here 7 on each host at most.
  for (let i = 0; i < 20; i++) {
    const reply = await json(HOSTS[i % 3]!, stale, app);
    expect(reply.status).toBe(401);
  }
  for (const host of HOSTS) {
    const viaJson = await json(host, stale, app);
    expect([viaJson.status, viaJson.json<{ error: { code: string } }>().error.code]).toEqual([
      429,
      'AUTH_RATE_LIMITED',
    ]);
    const viaForm = await form(host, stale, app);
    expect(viaForm.status).toBe(429);
    expect(viaForm.headers['retry-after']).toMatch(/^\d+$/);
  }
});
