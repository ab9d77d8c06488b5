/**
 * Issue 10, must hold 1: `apkrelay backup run` on a populated instance, then `backup restore` into
 * the empty database of a fresh instance with the same MASTER_KEY: every APK downloads
 * byte-identical, the account authenticates with its API key, installations, exception reports and
 * their screenshots are all there, and so is the audit log (issue 20: the same entries through the
 * API) and the webhook endpoints, whose secret stays sealed. `backup verify` passes the archive and catches a flipped byte;
 * restore refuses a non-empty database without --force. Runs the built CLI (dist/).
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { newAccount } from '../helpers/accounts';
import { request } from '../helpers/http';
import { execFile, stackEnv } from '../helpers/processes';
import { startStack, type TestStack } from '../helpers/stack';
import { fixture, uploadFixture } from '../helpers/uploads';
import { eventually, postForm, encodeForm, stackTrace } from '../integration/exceptions/fixtures';

const root = path.resolve(__dirname, '../..');
jest.setTimeout(180_000);

const APKS = [
  { file: 'large.apk', package: 'dev.apkrelay.large' },
  { file: 'signed-v2-only.apk', package: '' },
];
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let source: TestStack;
let target: TestStack;
let account: { apiKey: string; email: string; id: string };
let archive: string;

function cli(stack: TestStack, args: string[]) {
  return execFile('node', ['dist/ops/cli/main.js', ...args], {
    cwd: root,
    env: stackEnv(stack, { BACKUP_DIR: path.join(source.dataDir, 'backups') }),
  });
}

async function cliFails(stack: TestStack, args: string[]): Promise<string> {
  try {
    await cli(stack, args);
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    expect(e.code).toBe(1);
    return e.stdout + e.stderr;
  }
  throw new Error(`expected apkrelay ${args.join(' ')} to fail`);
}

const auth = () => ({ authorization: `Bearer ${account.apiKey}` });
let webhookSecret: string;
const auditOf = async (stack: TestStack) => {
  const r = await request(`${stack.urls.admin}/api/v2/audit`, { headers: auth(), ca: stack.ca });
  expect(r.status).toBe(200);
  return r.json<{ entries: Array<{ action: string }> }>().entries;
};

beforeAll(async () => {
  source = await startStack();
  target = await startStack({ masterKey: source.masterKey });
  account = await newAccount(source);
  const hook = await request(`${source.urls.admin}/api/v2/webhooks`, {
    method: 'POST',
    headers: auth(),
    json: { url: 'https://hooks.example.invalid/backup', events: ['backup.failed'] },
    ca: source.ca,
  });
  expect(hook.status).toBe(201);
  webhookSecret = hook.json<{ secret: string }>().secret;
  for (const apk of APKS) await uploadFixture(source, account.apiKey, apk.file);
  const apks = await source.mongo.db.collection('apks').find({ accountId: account.id }).toArray();
  APKS[1]!.package = String(apks.find((a) => a.package !== 'dev.apkrelay.large')?.package);
  const large = apks.find((a) => a.package === 'dev.apkrelay.large')!;
  for (const deviceId of ['kiosk-1', 'kiosk-2']) {
    const reg = await request(`${source.urls.push}/api/v2/installations`, {
      method: 'POST',
      headers: auth(),
      json: { package: String(large.package), deviceId },
      ca: source.ca,
    });
    expect(reg.status).toBeLessThan(300);
  }
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(50_000)]);
  const sent = await postForm(
    source.urls.admin,
    source.ca,
    encodeForm({
      package: String(large.package),
      api_key: account.apiKey,
      hash: String(large.md5),
      deviceId: 'kiosk-1',
      st: stackTrace('backup'),
      screen: jpeg.toString('base64'),
    }),
  );
  expect(sent.text).toBe('Exception sent.');
  const reports = () => source.mongo.db.collection('exceptions').countDocuments({});
  expect(await eventually(reports, 1)).toBe(1);
  expect(await source.mongo.db.collection('screenshots.files').countDocuments({})).toBe(1);
});
afterAll(async () => {
  await target?.close();
  await source?.close();
});

test('backup run --json prints the archive; verify passes it and catches a flipped byte', async () => {
  const { stdout } = await cli(source, ['backup', 'run', '--json']);
  const summary = JSON.parse(stdout.trim()) as {
    path: string;
    bytes: number;
    sha256: string;
    collections: Record<string, number>;
    files: number;
  };
  archive = summary.path;
  const bytes = await readFile(archive);
  expect(summary.bytes).toBe(bytes.length);
  expect(summary.sha256).toBe(sha256(bytes));
  expect(summary.collections).toMatchObject({
    accounts: 1,
    apps: 2,
    apks: 2,
    installations: 2,
    exceptions: 1,
    'apks.files': 2,
    'screenshots.files': 1,
    audit_log: 4, // the sign-up, two uploads received, the webhook
    webhook_endpoints: 1,
  });
  expect(summary.files).toBe(3);
  expect(bytes.includes(Buffer.from(webhookSecret))).toBe(false);
  // The archive is sealed (no document in clear) and the master key is not in it.
  expect(bytes.subarray(0, 8).toString()).toBe('APKRBAK2');
  expect(bytes.includes(Buffer.from(account.email))).toBe(false);
  expect(bytes.includes(source.masterKey)).toBe(false);
  expect(bytes.includes(Buffer.from(source.masterKey.toString('base64')))).toBe(false);
  const { stdout: ok } = await cli(source, ['backup', 'verify', archive, '--json']);
  expect(JSON.parse(ok.trim())).toMatchObject({ ok: true, problems: [] });

  const damaged = path.join(path.dirname(archive), 'damaged.tar.gz');
  const flipped = Buffer.from(bytes);
  const at = Math.floor(flipped.length / 2);
  flipped[at] = flipped[at]! ^ 0x01;
  await writeFile(damaged, flipped);
  await copyFile(`${archive}.sha256`, `${damaged}.sha256`);
  const out = await cliFails(source, ['backup', 'verify', damaged]);
  expect(out).toMatch(/DAMAGED/);
  // Without the sidecar the envelope's authentication still catches it.
  await writeFile(`${damaged}.sha256`, '');
  expect(await cliFails(source, ['backup', 'verify', damaged])).toMatch(/DAMAGED/);
  const { stdout: listed } = await cli(source, ['backup', 'list', '--json']);
  expect(JSON.parse(listed.trim())).toEqual([
    { path: archive, at: expect.any(String) as string, bytes: bytes.length },
  ]);
});

test('restore into the empty database of a fresh instance: everything is back', async () => {
  const { stdout } = await cli(target, ['backup', 'restore', archive, '--json']);
  expect(JSON.parse(stdout.trim())).toMatchObject({ files: 3 });

  const me = await request(`${target.urls.admin}/api/v2/account`, {
    headers: auth(),
    ca: target.ca,
  });
  expect(me.status).toBe(200);
  expect(me.json()).toMatchObject({ email: account.email, apiKey: account.apiKey });

  for (const apk of APKS) {
    const reply = await request(
      `${target.urls.web}/download?package=${apk.package}&api_key=${encodeURIComponent(account.apiKey)}`,
      { ca: target.ca },
    );
    expect(reply.status).toBe(200);
    expect(sha256(reply.body)).toBe(sha256(await fixture(apk.file)));
  }
  const installs = await request(
    `${target.urls.admin}/api/v2/apps/dev.apkrelay.large/installations`,
    { headers: auth(), ca: target.ca },
  );
  expect(installs.status).toBe(200);
  expect(installs.text).toContain('kiosk-1');
  expect(installs.text).toContain('kiosk-2');

  const report = await target.mongo.db.collection('exceptions').findOne({});
  const shown = await request(
    `${target.urls.admin}/api/v2/apps/dev.apkrelay.large/exceptions/${String(report?._id)}`,
    { headers: auth(), ca: target.ca },
  );
  expect(shown.status).toBe(200);
  const image = await request(shown.json<{ screenshot: string }>().screenshot, {
    headers: auth(),
    ca: target.ca,
  });
  expect(image.status).toBe(200);
  expect(image.body.subarray(0, 4)).toEqual(Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
  // The audit log is back as it was: the same entries through the API.
  const audit = await auditOf(source);
  expect(audit.map((e) => e.action)).toEqual([
    'upload.received',
    'upload.received',
    'webhook.created',
    'account.created',
  ]);
  expect(await auditOf(target)).toEqual(audit);
  // Every document of every collection comes back exactly (types, nulls, empty arrays included).
  const names = (await source.mongo.db.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .filter((n) => !n.endsWith('.chunks'));
  expect(names.length).toBeGreaterThanOrEqual(8);
  for (const name of names) {
    const all = (stack: TestStack) =>
      stack.mongo.db.collection(name).find({}).sort({ _id: 1 }).toArray();
    expect({ name, docs: await all(target) }).toEqual({ name, docs: await all(source) });
  }
});

test('restore refuses a non-empty database without --force, and replaces it with --force', async () => {
  expect(await cliFails(target, ['backup', 'restore', archive])).toMatch(/not empty/);
  const { stdout } = await cli(target, ['backup', 'restore', archive, '--force', '--json']);
  expect(JSON.parse(stdout.trim())).toMatchObject({ files: 3 });
  expect(await target.mongo.db.collection('apks').countDocuments({})).toBe(2);
  expect(await target.mongo.db.collection('apks.chunks').countDocuments({})).toBe(
    await source.mongo.db.collection('apks.chunks').countDocuments({}),
  );
});
