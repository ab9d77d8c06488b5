/**
 * Issue 10, must hold 3: the queue board `/ops/queues` refuses anonymous and non-operator callers
 * and lists every registered queue for an operator (role granted by the built CLI); `/metrics`
 * refuses a missing or wrong token and exposes queue depths, job durations, uploads by verdict,
 * bytes downloaded, open push streams, exceptions by verdict and backup age.
 */
import path from 'node:path';
import { recordLastBackup } from '../../../shared/backup/last-backup';
import { QUEUES } from '../../../shared/queues';
import { closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { newAccount } from '../../helpers/accounts';
import { registerDevices } from '../../helpers/devices';
import { request } from '../../helpers/http';
import { execFile, stackEnv } from '../../helpers/processes';
import { startStack, type TestStack } from '../../helpers/stack';
import { fixture, uploadFixture } from '../../helpers/uploads';
import { encodeForm, eventually, postForm, stackTrace } from '../exceptions/fixtures';

const root = path.resolve(__dirname, '../../..');
const TOKEN = 'metrics-token-0123456789abcdef';
jest.setTimeout(90_000);

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ metricsToken: TOKEN });
});
afterAll(() => stack.close());

const get = (p: string, headers: Record<string, string> = {}) =>
  request(`${stack.urls.admin}${p}`, { headers, ca: stack.ca });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

test('/ops/queues: 401 anonymous, 403 for an owner, every queue for an operator', async () => {
  for (const p of ['/ops/queues', '/ops/queues/api/queues']) {
    const anonymous = await get(p);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json<{ error: { code: string } }>().error.code).toBe('UNAUTHENTICATED');
    expect((await get(p, bearer('ak_not-a-real-key'))).status).toBe(401);
  }
  const owner = await newAccount(stack);
  const refused = await get('/ops/queues/api/queues', bearer(owner.apiKey));
  expect(refused.status).toBe(403);
  expect(refused.json<{ error: { code: string } }>().error.code).toBe('FORBIDDEN');

  const operator = await newAccount(stack);
  const { stdout } = await execFile(
    'node',
    [
      'dist/ops/cli/main.js',
      'account',
      'set-role',
      '--email',
      operator.email,
      '--role',
      'operator',
      '--json',
    ],
    { cwd: root, env: stackEnv(stack, {}) },
  );
  expect(JSON.parse(stdout.trim())).toMatchObject({ roles: ['owner', 'operator'] });
  const page = await get('/ops/queues', bearer(operator.apiKey));
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  const listed = await get('/ops/queues/api/queues', bearer(operator.apiKey));
  expect(listed.status).toBe(200);
  const names = listed.json<{ queues: Array<{ name: string }> }>().queues.map((q) => q.name);
  expect(names.sort()).toEqual(QUEUES.map((q) => q.name).sort());
  // The owner stays refused; a revoked operator is refused again.
  await execFile(
    'node',
    [
      'dist/ops/cli/main.js',
      'account',
      'set-role',
      '--email',
      operator.email,
      '--role',
      'operator',
      '--revoke',
    ],
    { cwd: root, env: stackEnv(stack, {}) },
  );
  expect((await get('/ops/queues/api/queues', bearer(operator.apiKey))).status).toBe(403);
});

test('/metrics: 401 without or with a wrong token; every series with the right one', async () => {
  expect((await get('/metrics')).status).toBe(401);
  expect((await get('/metrics', bearer('wrong-token-0123456789abcdef'))).status).toBe(401);
  expect((await get('/metrics', { authorization: TOKEN })).status).toBe(401);

  const { apiKey, id } = await newAccount(stack);
  await uploadFixture(stack, apiKey, 'large.apk');
  const large = await fixture('large.apk');
  const download = await request(
    `${stack.urls.web}/download?package=dev.apkrelay.large&api_key=${encodeURIComponent(apiKey)}`,
    { ca: stack.ca },
  );
  expect(download.status).toBe(200);
  const apk = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  await registerDevices(
    { baseUrl: stack.urls.web, ca: stack.ca, apiKey, package: 'dev.apkrelay.large' },
    ['d-1'],
  );
  const sent = await postForm(
    stack.urls.admin,
    stack.ca,
    encodeForm({
      package: 'dev.apkrelay.large',
      api_key: apiKey,
      hash: String(apk?.md5),
      deviceId: 'd-1',
      st: stackTrace('metrics'),
    }),
  );
  expect(sent.text).toBe('Exception sent.');
  await postForm(
    stack.urls.admin,
    stack.ca,
    encodeForm({
      package: 'dev.apkrelay.large',
      api_key: 'ak_wrong',
      hash: 'x',
      deviceId: 'd',
      st: ['x'],
    }),
  );
  await eventually(() => stack.mongo.db.collection('exceptions').countDocuments({}), 1);
  const redis = createWorkerRedis(stack.redisUrl, 'test:metrics');
  await recordLastBackup(redis, stack.prefix, {
    at: Date.now() - 90_000,
    path: '/x',
    bytes: 1,
    sha256: 'x',
  });
  await closeRedis(redis);

  const reply = await get('/metrics', bearer(TOKEN));
  expect(reply.status).toBe(200);
  expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = reply.text;
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  for (const q of QUEUES) {
    expect(value(`apkrelay_queue_jobs{queue="${q.name}",state="waiting"}`)).toBe(0);
    expect(value(`apkrelay_job_duration_seconds_count{queue="${q.name}"}`)).toBeGreaterThanOrEqual(
      0,
    );
  }
  expect(value('apkrelay_job_duration_seconds_count{queue="apk-ingest"}')).toBeGreaterThanOrEqual(
    1,
  );
  expect(
    value('apkrelay_job_duration_seconds_bucket{queue="apk-ingest",le="+Inf"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(value('apkrelay_uploads{verdict="accepted"}')).toBe(1);
  expect(value('apkrelay_download_bytes_total')).toBe(large.length);
  expect(value('apkrelay_push_streams_open{channel="sse"}')).toBe(0);
  expect(value('apkrelay_push_streams_open{channel="pushlink"}')).toBe(0);
  // The API's Buffers and ArrayBuffers (TLS and the download above use them).
  expect(value('apkrelay_nodejs_array_buffers_bytes')).toBeGreaterThan(0);
  expect(value('apkrelay_uploads_receiving')).toBe(0); // the uploads above are all in
  expect(value('apkrelay_exception_reports_total{verdict="REGISTERED"}')).toBe(1);
  expect(value('apkrelay_exception_reports_total{verdict="EXCEPTION_API_KEY_INVALID"}')).toBe(1);
  const age = value('apkrelay_backup_age_seconds');
  expect(age).toBeGreaterThanOrEqual(90);
  expect(age).toBeLessThan(200);
  expect(text).toContain('apkrelay_process_resident_memory_bytes');
});
