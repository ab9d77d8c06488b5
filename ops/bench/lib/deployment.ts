/**
 * A throwaway apkrelay deployment for benchmarks, as separate processes so each one's memory can
 * be measured: embedded Redis and MongoDB-protocol server for a temporary DATA_DIR, then
 * `apkrelay start --only api` and `--only workers` from the built CLI, on free ports, with their
 * settings passed explicitly (nothing inherited from the caller's apkrelay variables). With
 * `tls: false` the listeners speak plain HTTP (TLS=off, as behind a TLS-terminating proxy) and
 * advertise http:// URLs.
 * `stop()` ends the processes, then the services, then removes the DATA_DIR; it is idempotent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, processEnv } from '../../../shared/config';
import { exchange } from '../../cli/upload/http-client';
import { ensureServices, readServicesState } from '../../services/embedded';
import { freePort, stopPid } from '../../services/child';

export interface Deployment {
  /** https://localhost:port, or http://localhost:port with TLS off. */
  readonly adminUrl: string;
  /** PEM of the API's generated self-signed certificate ('' with TLS off: there is none). */
  readonly ca: string;
  readonly apiPid: number;
  readonly workersPid: number;
  /** The embedded services' processes (null if not found). */
  readonly servicePids: { readonly mongo: number | null; readonly redis: number | null };
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  readonly maxApkBytes: number;
  readonly readyTimeoutMs?: number;
  /** false: TLS=off, plain HTTP listeners (default true: HTTPS, self-signed certificate). */
  readonly tls?: boolean;
}

const STOP_GRACE_MS = 15_000;
/** Variables a Node process and the service binaries need; everything else is explicit. */
/** From the caller's environment; DOWNLOAD_CACHE_MB=0 measures downloads without the cache. */
const INHERITED = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'DOWNLOAD_CACHE_MB'];

function cliMain(): string {
  // dist/ops/bench/lib/deployment.js -> dist/ops/cli/main.js
  return path.resolve(__dirname, '../../cli/main.js');
}

interface Role {
  readonly child: ChildProcess;
  output(): string;
}

function startRole(role: 'api' | 'workers', env: Record<string, string>): Role {
  const child = spawn(process.execPath, [cliMain(), 'start', '--only', role], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (d: Buffer) => (tail = (tail + d.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => tail };
}

async function waitReady(
  adminUrl: string,
  caFile: string | null,
  roles: readonly Role[],
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not started';
  while (Date.now() < deadline) {
    for (const role of roles) {
      if (role.child.exitCode !== null) {
        throw new Error(`a service process exited (${role.child.exitCode}):\n${role.output()}`);
      }
    }
    try {
      const ca = caFile === null ? '' : await readFile(caFile, 'utf8');
      const reply = await exchange({
        method: 'GET',
        url: new URL(`${adminUrl}/readyz`),
        tls: { ca },
      });
      if (reply.status === 200) return ca;
      last = reply.text;
    } catch (err) {
      last = (err as Error).message; // not listening yet, or no certificate yet
    }
    await sleep(200);
  }
  throw new Error(`not ready within ${timeoutMs} ms: ${last}`);
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'apkrelay-bench-deployment-'));
  const outer = processEnv();
  const base: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = outer[name];
    if (value !== undefined) base[name] = value;
  }
  const closers: Array<() => Promise<void>> = [() => rm(dataDir, { recursive: true, force: true })];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    })());
  try {
    const services = await ensureServices(loadConfig({ ...base, DATA_DIR: dataDir }));
    closers.push(() => services.stop());
    const [port, webPort, pushPort] = [await freePort(), await freePort(), await freePort()];
    const env: Record<string, string> = {
      ...base,
      DATA_DIR: dataDir,
      REDIS_URL: services.redisUrl,
      MONGO_URL: services.mongoUrl,
      // Shared by both processes; generating it in each would race.
      MASTER_KEY: randomBytes(32).toString('base64'),
      HOST: '127.0.0.1',
      PORT: String(port),
      WEB_PORT: String(webPort),
      PUSH_PORT: String(pushPort),
      MAX_APK_BYTES: String(options.maxApkBytes),
      // The benchmark times the synchronous reply; it must not give up before the verdict.
      UPLOAD_WAIT_TIMEOUT_MS: '3600000',
      LOG_LEVEL: 'warn',
    };
    const tls = options.tls ?? true;
    const scheme = tls ? 'https' : 'http';
    if (!tls) {
      env.TLS = 'off';
      env.PUBLIC_BASE_URL = `http://localhost:${port}`;
      env.PUBLIC_WEB_URL = `http://localhost:${webPort}`;
      env.PUBLIC_PUSH_URL = `http://localhost:${pushPort}`;
    }
    const roles: Role[] = [];
    for (const name of ['workers', 'api'] as const) {
      const role = startRole(name, env);
      roles.push(role);
      closers.push(() => stopPid(role.child.pid ?? -1, STOP_GRACE_MS));
    }
    const adminUrl = `${scheme}://localhost:${port}`;
    const ca = await waitReady(
      adminUrl,
      tls ? path.join(dataDir, 'tls', 'self-signed.crt') : null,
      roles,
      options.readyTimeoutMs ?? 120_000,
    );
    const [workers, api] = roles.map((r) => r.child.pid ?? -1) as [number, number];
    const state = await readServicesState(dataDir);
    const servicePids = { mongo: state.mongo?.pid ?? null, redis: state.redis?.pid ?? null };
    return { adminUrl, ca, apiPid: api, workersPid: workers, servicePids, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Signs up a fresh account on the deployment and returns its API key. */
export async function createBenchAccount(d: Deployment): Promise<string> {
  const body = Buffer.from(
    JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'bench-password-1' }),
  );
  const reply = await exchange({
    method: 'POST',
    url: new URL(`${d.adminUrl}/api/v2/accounts`),
    headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    body: Readable.from([body]),
    tls: { ca: d.ca },
  });
  if (reply.status !== 201) throw new Error(`account creation failed: HTTP ${reply.status}`);
  return (JSON.parse(reply.text) as { apiKey: string }).apiKey;
}
