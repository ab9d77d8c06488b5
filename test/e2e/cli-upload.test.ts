/**
 * `apkrelay upload` as CI runs it: the BUILT CLI (`node dist/ops/cli/main.js`, built by `pretest`)
 * against a real stack over HTTPS (trusting its CA file, or --insecure), sync and --async, and
 * against small local servers for what the stack does not do on demand: 503 + Retry-After, and a
 * large file that must be streamed, never held in the CLI's memory.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import busboy from 'busboy';
import type { ObjectId } from 'mongodb';
import { newAccount } from '../helpers/accounts';
import { startStack, type TestStack } from '../helpers/stack';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'dist/ops/cli/main.js');
const apks = path.join(root, 'test/fixtures/apks');
jest.setTimeout(180_000);

let stack: TestStack;
let tmp: string;
let caFile: string;
beforeAll(async () => {
  stack = await startStack();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-cli-upload-'));
  caFile = path.join(tmp, 'ca.pem');
  await writeFile(caFile, stack.ca);
});
afterAll(async () => {
  await stack.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI asynchronously (the stack lives in this process and must keep serving). */
function upload(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, 'upload', ...args],
      { cwd: root, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

interface Line {
  file: string;
  ok: boolean;
  status: number | null;
  message: string;
  jobId?: string;
  verdict?: { code: string; message: string } | null;
  apk?: { package: string; versionCode: number; sha256: string } | null;
}

function lines(run: Run): Line[] {
  return run.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
}

const apk = (name: string) => path.join(apks, name);
const onStack = (apiKey: string) => ['--base-url', stack.urls.admin, '--api-key', apiKey];

test('sync: an APK is accepted (exit 0); the same bytes again are refused as a duplicate (exit 1)', async () => {
  const { apiKey, id } = await newAccount(stack);
  const first = await upload([...onStack(apiKey), '--ca', caFile, '--json', apk('version-1.apk')]);
  expect(first.code).toBe(0);
  expect(lines(first)).toEqual([
    { file: apk('version-1.apk'), ok: true, status: 200, message: 'deploy successful' },
  ]);
  expect(await stack.mongo.db.collection('apks').countDocuments({ accountId: id })).toBe(1);

  const again = await upload([...onStack(apiKey), '--ca', caFile, '--json', apk('version-1.apk')]);
  expect(again.code).not.toBe(0);
  expect(lines(again)).toEqual([
    {
      file: apk('version-1.apk'),
      ok: false,
      status: 409,
      message: 'deploy fails, this APK hash is the same of another APK uploaded',
    },
  ]);
  expect(await stack.mongo.db.collection('apks').countDocuments({ accountId: id })).toBe(1);
});

test('the upload names the APK’s package: its audit entry records it (issue 35)', async () => {
  const { apiKey, id } = await newAccount(stack);
  const file = apk('other-package.apk');
  const run = await upload([...onStack(apiKey), '--ca', caFile, file]);
  expect(run.code).toBe(0);
  const entries = await stack.mongo.db
    .collection('audit_log')
    .find({ accountId: id, action: 'upload.received' })
    .toArray();
  expect(entries.map((e) => e.details as unknown)).toEqual([
    { current: false, package: 'dev.apkrelay.other' },
  ]);
});

test('--async with 5 files: every job polled to done, with its APK record', async () => {
  const { apiKey, id } = await newAccount(stack);
  const files = [1, 2, 3, 4, 5].map((n) => apk(`bulk/bulk-0${n}.apk`));
  const run = await upload([
    ...onStack(apiKey),
    '--ca',
    caFile,
    '--async',
    '--json',
    '--concurrency',
    '3',
    ...files,
  ]);
  expect(run.code).toBe(0);
  // Lines come as files finish, so in any order.
  const out = lines(run).sort((a, b) => a.file.localeCompare(b.file));
  expect(out.map((l) => l.file)).toEqual(files);
  for (const [i, line] of out.entries()) {
    expect(line).toMatchObject({
      ok: true,
      status: 202,
      message: 'deploy successful',
      verdict: { code: 'ACCEPTED', message: 'deploy successful' },
      apk: { package: 'dev.apkrelay.bulk', versionCode: i + 1 },
    });
    expect(line.jobId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  }
  const stored = await stack.mongo.db.collection('apks').find({ accountId: id }).toArray();
  expect(stored.map((d) => d.sha256 as string).sort()).toEqual(
    out.map((l) => l.apk?.sha256).sort(),
  );
});

test('--current and --whatsnew reach the server; several files, one bad: exit 1, the good one stored', async () => {
  const { apiKey, id } = await newAccount(stack);
  const run = await upload([
    ...onStack(apiKey),
    '--ca',
    caFile,
    '--current',
    '--whatsnew',
    'Faster start-up',
    apk('version-2.apk'),
    apk('not-a-zip.apk'),
  ]);
  expect(run.code).toBe(1);
  const [bad, good] = run.stdout.trim().split('\n').sort();
  expect(good).toMatch(/^ok {2}.*version-2\.apk: deploy successful \(HTTP 200\)$/);
  expect(bad).toMatch(/^FAIL .*not-a-zip\.apk: deploy fails, Invalid APK file \(HTTP 422\)$/);
  const stored = await stack.mongo.db.collection('apks').findOne({ accountId: id });
  expect(stored).toMatchObject({ versionCode: 2, whatsnew: 'Faster start-up' });
  const app = await stack.mongo.db
    .collection<{ currentApkId: ObjectId | null }>('apps')
    .findOne({ accountId: id });
  expect(app?.currentApkId?.toHexString()).toBe(stored?._id.toHexString());
});

test('a bad API key: exit 1 and the key appears nowhere in the output, sync or async, JSON or text', async () => {
  const badKey = `ak_${'Q'.repeat(32)}`;
  for (const extra of [['--json'], [], ['--async', '--json']]) {
    const run = await upload([...onStack(badKey), '--ca', caFile, ...extra, apk('version-3.apk')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('deploy fails, Invalid Api Key');
    expect(run.stdout + run.stderr).not.toContain(badKey);
  }
});

test('a bad API key on a 40 MB upload: the refusal reaches the CLI, not a broken pipe', async () => {
  // The server refuses on the key (the form's first field) with most of the file still to come.
  // Closing outright while the CLI writes made the kernel reset the connection and drop the
  // unread reply ("write EPIPE"); the server's lingering close lets the reply through.
  const big = path.join(tmp, 'refused-big.apk');
  await writeFile(big, '');
  await truncate(big, 40 * 1024 * 1024);
  const badKey = `ak_${'R'.repeat(32)}`;
  for (let i = 0; i < 5; i++) {
    const run = await upload([...onStack(badKey), '--ca', caFile, '--json', big]);
    expect(run.code).toBe(1);
    expect(lines(run)).toEqual([
      expect.objectContaining({ ok: false, status: 401, message: 'deploy fails, Invalid Api Key' }),
    ]);
  }
});

test('TLS: --insecure works without --ca; without either the self-signed server is refused', async () => {
  const { apiKey } = await newAccount(stack);
  const refused = await upload([...onStack(apiKey), '--json', apk('other-package.apk')]);
  expect(refused.code).toBe(1);
  const [line] = lines(refused);
  expect(line).toMatchObject({ ok: false, status: null });
  expect(line?.message).toMatch(/certificate/i);
  const insecure = await upload([
    ...onStack(apiKey),
    '--insecure',
    '--json',
    apk('other-package.apk'),
  ]);
  expect(insecure.code).toBe(0);
  expect(lines(insecure)).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
});

/** A plain-HTTP server whose handler sees each parsed form (busboy) and the raw byte count. */
async function formServer(
  reply: (
    form: { fields: Map<string, string>; fileBytes: number; bodyBytes: number; length: number },
    res: ServerResponse,
  ) => void,
): Promise<{ server: Server; url: string; requests: () => number }> {
  let count = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    count++;
    const fields = new Map<string, string>();
    let fileBytes = 0;
    let bodyBytes = 0;
    req.on('data', (c: Buffer) => (bodyBytes += c.length));
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('file', (_name, stream) => stream.on('data', (c: Buffer) => (fileBytes += c.length)));
    const length = Number(req.headers['content-length']);
    parser.on('close', () => reply({ fields, fileBytes, bodyBytes, length }, res));
    req.pipe(parser);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, requests: () => count };
}

test('a 503 with Retry-After is retried; a server that stays unavailable ends in exit 1', async () => {
  const flaky = await formServer((form, res) => {
    const first = flaky.requests() === 1;
    res.writeHead(first ? 503 : 200, { 'content-type': 'text/plain', 'retry-after': '1' });
    res.end(first ? 'deploy fails, service unavailable; retry later' : 'deploy successful');
  });
  const down = await formServer((_form, res) => {
    res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
    res.end('deploy fails, service unavailable; retry later');
  });
  try {
    const started = Date.now();
    const ok = await upload([
      '--base-url',
      flaky.url,
      '--api-key',
      'k1',
      '--json',
      apk('version-1.apk'),
    ]);
    expect(ok.code).toBe(0);
    expect(flaky.requests()).toBe(2);
    // p-retry is ESM-only: the CommonJS build loads it through require(esm), without a warning.
    expect(ok.stderr).toBe('');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const failed = await upload([
      '--base-url',
      down.url,
      '--api-key',
      'k2',
      '--json',
      apk('version-1.apk'),
    ]);
    expect(failed.code).toBe(1);
    expect(lines(failed)).toEqual([expect.objectContaining({ ok: false, status: 503 })]);
    expect(down.requests()).toBe(4); // the first attempt and 3 retries
  } finally {
    flaky.server.close();
    down.server.close();
  }
});

/** Uploads `file` to a form sink; the sink reads the CLI's peak resident set before replying. */
async function uploadMeasured(file: string): Promise<{ code: number; line: Line; peakKb: number }> {
  let peakKb = -1;
  let pid = 0;
  const sink = await formServer((form, res) => {
    // The CLI is still alive waiting for this reply: read its peak resident set now.
    void readFile(`/proc/${pid}/status`, 'utf8').then((status) => {
      peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? -1);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(
        `got ${form.fileBytes} file bytes, ${form.bodyBytes} of ${form.length} body bytes, apiKey ${form.fields.get('apiKey') === 'k3'}`,
      );
    });
  });
  try {
    const child = execFile(process.execPath, [
      cli,
      'upload',
      '--base-url',
      sink.url,
      '--api-key',
      'k3',
      '--json',
      file,
    ]);
    pid = child.pid ?? 0;
    let stdout = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    return { code, line: JSON.parse(stdout.trim()) as Line, peakKb };
  } finally {
    sink.server.close();
  }
}

test('a 300 MB file is streamed with an exact Content-Length; the CLI never holds it in memory', async () => {
  const big = path.join(tmp, 'big.apk');
  const small = path.join(tmp, 'small.apk');
  for (const [file, size] of [
    [big, 300 * 1024 * 1024],
    [small, 1024 * 1024],
  ] as const) {
    await writeFile(file, '');
    await truncate(file, size); // sparse: cheap to make, read as zeros
  }
  const baseline = await uploadMeasured(small);
  const measured = await uploadMeasured(big);
  for (const run of [baseline, measured]) {
    expect(run.code).toBe(0);
    expect(run.line.ok).toBe(true);
    expect(run.peakKb).toBeGreaterThan(0);
  }
  const [, fileBytes, bodyBytes, length] =
    /got (\d+) file bytes, (\d+) of (\d+) body bytes, apiKey true/.exec(measured.line.message) ??
    [];
  expect(Number(fileBytes)).toBe(300 * 1024 * 1024);
  expect(Number(bodyBytes)).toBe(Number(length));
  expect(Number(bodyBytes)).toBeGreaterThan(300 * 1024 * 1024);
  // Memory does not grow with the file: a 300 MB upload peaks within 16 MiB of a 1 MB one's
  // (a stream of fresh chunks grew it by about 70 MiB before the garbage collector ran).
  expect(measured.peakKb - baseline.peakKb).toBeLessThan(16 * 1024);
});
