/**
 * A throwaway apkrelay deployment for benchmarks and the Android library's stack test
 * (ops/dev/stack.ts), as separate processes so each one's memory can be measured and the API can
 * be stopped and started again: embedded Redis and MongoDB-protocol server for a temporary DATA_DIR, then
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
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, processEnv } from '../../shared/config';
import { exchange } from '../cli/upload/http-client';
import { ensureServices, readServicesState } from '../services/embedded';
import { freePort, stopPid } from '../services/child';
import { coerceError } from '../../shared/errors';

export interface Deployment {
  /** https://localhost:port, or http://localhost:port with TLS off. */
  readonly adminUrl: string;
  /** The three hosts' URLs (admin is adminUrl). */
  readonly urls: { readonly admin: string; readonly web: string; readonly push: string };
  /** PEM of the API's generated self-signed certificate ('' with TLS off: there is none). */
  readonly ca: string;
  /** The running API process (another one after restartApi). */
  readonly apiPid: number;
  readonly workersPid: number;
  /** The MongoDB-protocol server the deployment stores into (for benches' own raw reads and writes). */
  readonly mongoUrl: string;
  /** The embedded services' processes (null if not found). */
  readonly servicePids: { readonly mongo: number | null; readonly redis: number | null };
  /** The PushLink SDK listener's port (LEGACY_PUSH_PORT), null unless `legacyPush` was asked. */
  readonly legacyPushPort: number | null;
  /** Stops the API process (SIGTERM, then waits); the workers and services keep running. */
  stopApi(): Promise<void>;
  /** Starts an API process again, same settings and ports, and waits until it is ready. */
  startApi(): Promise<void>;
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  readonly maxApkBytes: number;
  readonly readyTimeoutMs?: number;
  /** false: TLS=off, plain HTTP listeners (default true: HTTPS, self-signed certificate). */
  readonly tls?: boolean;
  /** More settings for both processes, e.g. HEARTBEAT_SECONDS. */
  readonly env?: Readonly<Record<string, string>>;
  /** true: the API also listens for PushLink SDK sockets, on a free LEGACY_PUSH_PORT. */
  readonly legacyPush?: boolean;
}

const STOP_GRACE_MS = 15_000;
/** Variables a Node process and the service binaries need; everything else is explicit. */
/**
 * From the caller's environment; DOWNLOAD_CACHE_MB=0 measures downloads without the cache,
 * DOWNLOAD_MEMORY_MB=0 without the memory of decrypted APKs; MALLOC_ARENA_MAX and GLIBC_TUNABLES
 * measure glibc's allocator settings (bench:ingest's API memory).
 */
const INHERITED = [
  'PATH',
  'HOME',
  'TMPDIR',
  'LANG',
  'DOWNLOAD_CACHE_MB',
  'DOWNLOAD_MEMORY_MB',
  'EMBEDDED_MONGO_BACKEND',
  'MALLOC_ARENA_MAX',
  'GLIBC_TUNABLES',
];

function cliMain(): string {
  // dist/ops/dev/deployment.js -> dist/ops/cli/main.js
  return path.resolve(__dirname, '../cli/main.js');
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
      last = coerceError(err).message; // not listening yet, or no certificate yet
    }
    await sleep(200);
  }
  throw new Error(`not ready within ${timeoutMs} ms: ${last}`);
}

async function deploymentEnv(
  options: DeploymentOptions,
  base: Record<string, string>,
  dataDir: string,
  services: { redisUrl: string; mongoUrl: string },
): Promise<{ env: Record<string, string>; urls: Deployment['urls'] }> {
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
    // Benchmarks register whole fleets with one key in a minute: they measure throughput, not
    // the flood limits (which a leaked key meets in production), so those are out of the way.
    DEVICE_NEW_REGISTRATIONS_PER_KEY: '1000000',
    DEVICE_NEW_REGISTRATIONS_PER_APP: '1000000',
    // Every simulated PushLink device connects from loopback, thousands at once.
    LEGACY_PUSH_MAX_PENDING_PER_ADDRESS: '0',
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  if (options.legacyPush) {
    // freePort may hand out a port it just gave (nothing holds it yet): take a distinct one.
    let legacy = await freePort();
    while ([port, webPort, pushPort].includes(legacy)) legacy = await freePort();
    env.LEGACY_PUSH_PORT = String(legacy);
  }
  const scheme = (options.tls ?? true) ? 'https' : 'http';
  const urls = {
    admin: `${scheme}://localhost:${port}`,
    web: `${scheme}://localhost:${webPort}`,
    push: `${scheme}://localhost:${pushPort}`,
  };
  if (scheme === 'http') {
    env.TLS = 'off';
    env.PUBLIC_BASE_URL = urls.admin;
    env.PUBLIC_WEB_URL = urls.web;
    env.PUBLIC_PUSH_URL = urls.push;
  }
  return { env, urls };
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
    const { env, urls } = await deploymentEnv(options, base, dataDir, services);
    const workers = startRole('workers', env);
    closers.push(() => stopPid(workers.child.pid ?? -1, STOP_GRACE_MS));
    let api: Role | null = startRole('api', env);
    closers.push(() => (api ? stopPid(api.child.pid ?? -1, STOP_GRACE_MS) : Promise.resolve()));
    const caFile = env.TLS === 'off' ? null : path.join(dataDir, 'tls', 'self-signed.crt');
    const ready = (role: Role) =>
      waitReady(urls.admin, caFile, [workers, role], options.readyTimeoutMs ?? 120_000);
    const ca = await ready(api);
    const state = await readServicesState(dataDir);
    const servicePids = { mongo: state.mongo?.pid ?? null, redis: state.redis?.pid ?? null };
    return {
      adminUrl: urls.admin,
      urls,
      ca,
      get apiPid() {
        return api?.child.pid ?? -1;
      },
      workersPid: workers.child.pid ?? -1,
      mongoUrl: services.mongoUrl,
      servicePids,
      legacyPushPort: env.LEGACY_PUSH_PORT === undefined ? null : Number(env.LEGACY_PUSH_PORT),
      async stopApi() {
        if (api) await stopPid(api.child.pid ?? -1, STOP_GRACE_MS);
        api = null;
      },
      async startApi() {
        if (api) return;
        api = startRole('api', env);
        await ready(api);
      },
      stop,
    };
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
    body,
    tls: { ca: d.ca },
  });
  if (reply.status !== 201) throw new Error(`account creation failed: HTTP ${reply.status}`);
  return (JSON.parse(reply.text) as { apiKey: string }).apiKey;
}
