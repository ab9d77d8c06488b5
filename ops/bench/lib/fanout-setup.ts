/**
 * Setup of the fan-out benchmark through the real interfaces (not measured): an account, its plan
 * raised with `apkrelay account set-plan`, one app per round with two signed APKs (v1 current),
 * and N installations registered with bounded concurrency over a keep-alive agent. Also the
 * open-file limit check, and the deployment's settings (read from the API process's environment,
 * as `Deployment` does not expose them) that the CLI and the baseline need.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Agent } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { processEnv } from '../../../shared/config';
import { exchange } from '../../cli/upload/http-client';
import { streamedForm } from '../../cli/upload/multipart-stream';
import type { Deployment } from '../../dev/deployment';
import { benchApk } from './signed-apk';
import { request } from './transport';

const run = promisify(execFile);
const APK_PAYLOAD_BYTES = 16 * 1024;
/** Every request of the bench goes to loopback; the certificate (TLS on) names localhost. */
export const SERVERNAME = 'localhost';

export interface JsonReply {
  readonly status: number;
  readonly body: unknown;
}

/** One JSON request over `agent` (keep-alive, of the URL's protocol), to a 127.0.0.1 URL. */
export function jsonRequest(
  agent: Agent,
  ca: string,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<JsonReply> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const h: Record<string, string> = { ...headers, accept: 'application/json' };
  if (payload) {
    h['content-type'] = 'application/json';
    h['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, ca, servername: SERVERNAME, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${url}: no reply in 60 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The loopback form of a URL the API advertises (http(s)://localhost:p/... → 127.0.0.1). */
export function loopback(url: string, pathname?: string): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  if (pathname !== undefined) u.pathname = pathname;
  return u.toString();
}

/** Settings of the deployment (DATA_DIR, MONGO_URL, ...), from its API process's environment. */
export async function deploymentEnv(d: Deployment): Promise<Record<string, string>> {
  const raw = await readFile(`/proc/${d.apiPid}/environ`, 'utf8');
  const env: Record<string, string> = {};
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** The soft open-file limit of a process, from /proc/<pid>/limits. */
export async function openFileLimit(pid: number | 'self'): Promise<number> {
  const limits = await readFile(`/proc/${pid}/limits`, 'utf8');
  const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
  return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
}

/**
 * Makes sure this process (and so every process it starts: API, workers, baseline, clients) may
 * open `needed` files, raising its own limit with prlimit(1) when it is lower.
 */
export async function ensureOpenFiles(needed: number): Promise<number> {
  const have = await openFileLimit('self');
  if (have >= needed) return have;
  await run('prlimit', [`--pid=${process.pid}`, `--nofile=${needed}:${needed}`]).catch(
    (err: Error) => {
      throw new Error(
        `open-file limit ${have} < ${needed} needed and prlimit failed (${err.message}); ` +
          `run with a higher limit, e.g. prlimit --nofile=${needed} npm run bench:fanout`,
      );
    },
  );
  return openFileLimit('self');
}

export async function createAccount(d: Deployment, agent: Agent, email: string): Promise<string> {
  const reply = await jsonRequest(
    agent,
    d.ca,
    'POST',
    loopback(d.adminUrl, '/api/v2/accounts'),
    {},
    {
      email,
      password: 'bench-password-1',
    },
  );
  if (reply.status !== 201) throw new Error(`account creation failed: HTTP ${reply.status}`);
  return (reply.body as { apiKey: string }).apiKey;
}

/** The id of the account that owns `apiKey`. */
export async function accountId(d: Deployment, agent: Agent, apiKey: string): Promise<string> {
  const auth = { authorization: `Bearer ${apiKey}` };
  const reply = await jsonRequest(
    agent,
    d.ca,
    'GET',
    loopback(d.adminUrl, '/api/v2/account'),
    auth,
  );
  if (reply.status !== 200) throw new Error(`GET /api/v2/account: HTTP ${reply.status}`);
  return (reply.body as { id: string }).id;
}

/** `apkrelay account set-plan`, run by the built CLI against the deployment's database. */
export async function setPlan(d: Deployment, email: string, installations: number): Promise<void> {
  const deployed = await deploymentEnv(d);
  const env: Record<string, string> = {};
  const wanted = ['PATH', 'HOME', 'DATA_DIR', 'MONGO_URL', 'REDIS_URL', 'MASTER_KEY'];
  for (const name of wanted) {
    const value = deployed[name] ?? processEnv()[name];
    if (value !== undefined) env[name] = value;
  }
  env.LOG_LEVEL = 'warn';
  const cli = path.resolve(__dirname, '../../cli/main.js');
  const args = ['account', 'set-plan', '--email', email, '--plan', String(installations), '--json'];
  await run(process.execPath, [cli, ...args], { env });
}

export interface BenchApp {
  readonly package: string;
  readonly installedMd5: string;
}

/** Uploads v1 (current) and v2 (not current) of a fresh package; devices will run v1. */
export async function createApp(d: Deployment, apiKey: string, pkg: string): Promise<BenchApp> {
  let installedMd5 = '';
  for (const versionCode of [1, 2]) {
    const file = await benchApk({ payloadBytes: APK_PAYLOAD_BYTES, package: pkg, versionCode });
    if (versionCode === 1) {
      installedMd5 = createHash('md5')
        .update(await readFile(file))
        .digest('hex');
    }
    const fields: Array<[string, string]> = [['apiKey', apiKey]];
    if (versionCode === 1) fields.push(['current', 'true']);
    const form = await streamedForm(fields, { field: 'apk', path: file });
    const reply = await exchange({
      method: 'POST',
      url: new URL(`${d.adminUrl}/apps/api_upload`),
      headers: { 'content-type': form.contentType, 'content-length': String(form.length) },
      body: form.open(),
      tls: { ca: d.ca },
    });
    if (reply.status !== 200) throw new Error(`upload of ${pkg} v${versionCode}: ${reply.text}`);
  }
  return { package: pkg, installedMd5 };
}

/** Registers the devices (bounded concurrency); returns the stream URL without deviceId. */
export async function registerDevices(
  d: Deployment,
  agent: Agent,
  apiKey: string,
  app: BenchApp,
  deviceIds: readonly string[],
  concurrency: number,
  progress: (done: number) => void = () => undefined,
): Promise<string> {
  let next = 0;
  let failed = false;
  let done = 0;
  let streamUrl = '';
  const url = loopback(d.adminUrl, '/api/v2/installations');
  const auth = { authorization: `Bearer ${apiKey}` };
  const registerOne = async (i: number) => {
    const body = { package: app.package, deviceId: deviceIds[i], installedMd5: app.installedMd5 };
    const reply = await jsonRequest(agent, d.ca, 'POST', url, auth, body);
    const r = reply.body as { status?: string; streamUrl?: string };
    if (reply.status !== 200 || r.status !== 'enabled' || !r.streamUrl) {
      throw new Error(`registration ${i}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    streamUrl ||= r.streamUrl;
    if (++done % 1000 === 0) progress(done);
  };
  const worker = async () => {
    try {
      for (let i = next++; i < deviceIds.length && !failed; i = next++) await registerOne(i);
    } catch (err) {
      failed = true; // the other workers stop too
      throw err;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const u = new URL(loopback(streamUrl));
  u.searchParams.delete('deviceId');
  return u.toString();
}
