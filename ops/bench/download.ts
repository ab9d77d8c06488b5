/**
 * Benchmark (issue 5): N concurrent clients (default 32) downloading a large current APK (default
 * 50 MiB) over HTTPS on loopback from apkrelay's web host (`GET /download?package=P&api_key=K`:
 * GridFS reads + AES-256-GCM segment decryption + TLS), against nginx serving the same plaintext
 * file over HTTPS with the same certificate (`sendfile on`) in the same run: the physical limit of
 * this machine. Aggregate throughput, p50/p99 time to last byte, the ratio apkrelay / nginx, and
 * the CPU each side's processes used.
 *
 *   npm run bench:download [-- --clients 32] [-- --rounds 4] [-- --size 50] [-- --json]
 *
 * `--mode offload` measures apkrelay behind nginx instead, as ops/deploy ships it with
 * DOWNLOAD_OFFLOAD=nginx (docs/downloads.md, "nginx offload"): nginx terminates TLS (its own
 * self-signed certificate) and proxies `/download` in plain HTTP over kept-alive connections to the
 * API running with TLS=off and TRUST_PROXY=loopback; the API authorises each download and nginx
 * sends the bytes from the API's offload directory (on /dev/shm, a tmpfs), against the same nginx
 * serving the file directly.
 *
 * Every client first downloads once (warm-up, not measured), then `rounds` times back to back.
 * The API and workers run as their own processes on embedded services for a temporary DATA_DIR
 * (ops/dev/deployment.ts); nginx runs in the foreground from a temporary prefix (lib/nginx.ts).
 * Everything is stopped at the end, also on error.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APK_CONTENT_TYPE } from '../../api/downloads/send-apk';
import { selfSignedCertificate } from '../../shared/crypto/tls';
import { cpuSnapshot } from './lib/cpu-time';
import { createBenchAccount, startDeployment, type Deployment } from '../dev/deployment';
import { percentile, runLoad, type LoadOptions, type LoadResult } from './lib/download-load';
import { ensureNginx, startNginx } from './lib/nginx';
import {
  ratio,
  runBench,
  whole,
  type Args as BenchArgs,
  type Bench,
  type BenchContext,
  type Flags,
} from './lib/runner';
import { benchApk } from './lib/signed-apk';
import { uploadCurrent } from './lib/upload-current';

const MiB = 1024 * 1024;
const MB = 1e6;
const PACKAGE = 'dev.apkrelay.bench.download';

const FLAGS = {
  clients: whole(32, [1, 1024], '--clients takes 1 to 1024', 'concurrent clients'),
  rounds: whole(4, [1, 100], '--rounds takes 1 to 100', 'downloads per client after its warm-up'),
  size: whole(50, [1, 1024], '--size takes 1 to 1024', "the APK's payload in MiB"),
  mode: {
    kind: 'choice',
    values: ['standalone', 'offload'],
    default: 'standalone',
    error: '--mode takes standalone or offload',
    help: 'standalone: the API over HTTPS; offload: behind nginx with DOWNLOAD_OFFLOAD=nginx',
  },
} as const satisfies Flags;

type Args = BenchArgs<typeof FLAGS>;

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * DATA_DIR and WEB_PORT the deployment gave its API process (Deployment exposes neither), from
 * /proc/<pid>/environ: the certificate's key lives in DATA_DIR/tls/, the web host on WEB_PORT.
 */
async function apiSettings(d: Deployment): Promise<{ dataDir: string; webPort: number }> {
  const pairs = (await readFile(`/proc/${d.apiPid}/environ`, 'utf8')).split('\0');
  const value = (name: string) =>
    pairs.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1);
  const dataDir = value('DATA_DIR');
  const webPort = Number(value('WEB_PORT'));
  if (!dataDir || !Number.isInteger(webPort)) throw new Error('no DATA_DIR/WEB_PORT in API env');
  return { dataDir, webPort };
}

async function processName(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim();
}

interface TargetRun {
  readonly name: string;
  readonly load: LoadResult;
  readonly mbPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** CPU seconds of each server-side process during the measured rounds. */
  readonly serverCpuSeconds: Record<string, number>;
}

async function measureTarget(
  name: string,
  url: URL,
  ca: string,
  pids: () => Promise<Record<string, number>>,
  options: LoadOptions,
  say: (text: string) => void,
): Promise<TargetRun> {
  say(`${name}: warm-up (${options.clients} clients x 1 download) ...`);
  await runLoad({ url, ca }, { ...options, rounds: 1 });
  say(`${name}: ${options.clients} clients x ${options.rounds} downloads ...`);
  const cpuUsed = await cpuSnapshot(await pids());
  const load = await runLoad({ url, ca }, options);
  const serverCpuSeconds = await cpuUsed();
  return {
    name,
    load,
    mbPerSecond: load.bytes / MB / load.wallSeconds,
    p50: percentile(load.ttlbSeconds, 50),
    p99: percentile(load.ttlbSeconds, 99),
    serverCpuSeconds,
  };
}

/** CPU seconds of a target's server processes (from /proc/<pid>/stat), in all and per GB sent. */
const cpu = (r: TargetRun) => Object.values(r.serverCpuSeconds).reduce((a, b) => a + b, 0);
const cpuPerGb = (r: TargetRun) => cpu(r) / (r.load.bytes / 1e9);

function table(runs: readonly [TargetRun, TargetRun]): string {
  const [relay, nginx] = runs;
  const header = [
    '',
    'MB/s',
    'p50 TTLB s',
    'p99 TTLB s',
    'p50 TTFB s',
    'server CPU s',
    'CPU s/GB',
    'wall s',
  ];
  const row = (r: TargetRun) => [
    r.name,
    r.mbPerSecond.toFixed(1),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    percentile(r.load.ttfbSeconds, 50).toFixed(3),
    cpu(r).toFixed(1),
    cpuPerGb(r).toFixed(2),
    r.load.wallSeconds.toFixed(1),
  ];
  const ratios = [
    'apkrelay / nginx',
    ratio(relay.mbPerSecond, nginx.mbPerSecond),
    ratio(relay.p50, nginx.p50),
    ratio(relay.p99, nginx.p99),
    ratio(percentile(relay.load.ttfbSeconds, 50), percentile(nginx.load.ttfbSeconds, 50)),
    ratio(cpu(relay), cpu(nginx)),
    ratio(cpuPerGb(relay), cpuPerGb(nginx)),
    ratio(relay.load.wallSeconds, nginx.load.wallSeconds),
  ];
  const body = [row(relay), row(nginx), ratios];
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

function cpuLine(r: TargetRun): string {
  const parts = Object.entries(r.serverCpuSeconds).map(([k, v]) => `${k} ${v.toFixed(1)} s`);
  const gb = r.load.bytes / 1e9;
  return (
    `${r.name}: ${parts.join(', ')}, client ${r.load.clientCpuSeconds.toFixed(1)} s ` +
    `over ${r.load.wallSeconds.toFixed(1)} s wall (${gb.toFixed(1)} GB); ${r.load.tls}; ` +
    `SHA-256 verified on ${r.load.verifiedDownloads} full downloads`
  );
}

/**
 * The two servers of one APK: apkrelay (its web host, or behind nginx with `offloadDir`) and
 * nginx serving the file directly; the pids whose CPU is counted.
 */
async function serveBoth(
  deployment: Deployment,
  apk: string,
  nginxBinary: string,
  { onExit, say }: Pick<BenchContext, 'onExit' | 'say'>,
  offloadDir: string | null,
) {
  const { dataDir, webPort } = await apiSettings(deployment);
  const apiKey = await createBenchAccount(deployment);
  say('uploading the APK ...');
  await uploadCurrent(deployment, apiKey, apk);
  const query = `/download?package=${PACKAGE}&api_key=${encodeURIComponent(apiKey)}`;
  // Behind nginx the API speaks plain HTTP (TLS=off) and has no certificate: nginx gets its own.
  const tls = offloadDir
    ? await nginxCertificate(onExit)
    : {
        certFile: path.join(dataDir, 'tls', 'self-signed.crt'),
        keyFile: path.join(dataDir, 'tls', 'self-signed.key'),
        ca: deployment.ca,
      };
  const nginx = await startNginx(nginxBinary, {
    file: apk,
    urlPath: offloadDir ? '/direct' : '/download',
    certFile: tls.certFile,
    keyFile: tls.keyFile,
    contentType: APK_CONTENT_TYPE,
    ...(offloadDir ? { offload: { upstream: `127.0.0.1:${webPort}`, dir: offloadDir } } : {}),
  });
  onExit(() => nginx.stop());
  const relayPids = async () => {
    const pids: Record<string, number> = { api: deployment.apiPid };
    const { mongo, redis } = deployment.servicePids;
    if (mongo !== null) pids[`mongo (${await processName(mongo)})`] = mongo;
    if (redis !== null) pids.redis = redis;
    return pids;
  };
  const nginxPids = async () => {
    const pids: Record<string, number> = { 'nginx master': nginx.pid };
    for (const [i, pid] of (await nginx.workerPids()).entries()) pids[`worker ${i}`] = pid;
    return pids;
  };
  if (!offloadDir) {
    return {
      ca: tls.ca,
      relay: { url: new URL(`https://127.0.0.1:${webPort}${query}`), pids: relayPids },
      nginx: { url: new URL(`${nginx.origin}${query}`), pids: nginxPids },
    };
  }
  // Behind nginx, apkrelay's cost is the API's, its stores' and nginx's together.
  const bothPids = async () => ({ ...(await relayPids()), ...(await nginxPids()) });
  return {
    ca: tls.ca,
    relay: { url: new URL(`${nginx.origin}${query}`), pids: bothPids },
    nginx: {
      url: new URL(`${nginx.origin}/direct${query.slice('/download'.length)}`),
      pids: nginxPids,
    },
  };
}

/**
 * nginx's TLS material behind which the API runs with TLS=off: a self-signed certificate for
 * loopback, in a directory of its own removed at exit.
 */
async function nginxCertificate(onExit: BenchContext['onExit']) {
  const dir = await mkdtemp(path.join(tmpdir(), 'apkrelay-bench-tls-'));
  await chmod(dir, 0o755); // nginx's master reads it; the key stays 0600 to its owner
  onExit(() => rm(dir, { recursive: true, force: true }));
  const { cert, key } = selfSignedCertificate([], new Date());
  const certFile = path.join(dir, 'nginx.crt');
  const keyFile = path.join(dir, 'nginx.key');
  await writeFile(certFile, cert);
  await writeFile(keyFile, key, { mode: 0o600 });
  return { certFile, keyFile, ca: cert };
}

/** The API's offload directory for `--mode offload`: on /dev/shm (tmpfs), readable by nginx. */
async function tmpfsDir(onExit: BenchContext['onExit']): Promise<string> {
  const dir = await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'apkrelay-'));
  await chmod(dir, 0o755); // nginx's workers drop to an unprivileged user when started as root
  onExit(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function report(args: Args, runs: readonly [TargetRun, TargetRun], apkBytes: number): string {
  return [
    '',
    table(runs),
    '',
    ...runs.map(cpuLine),
    `MB/s = 10^6 bytes/s, all clients together, first request to last byte; TTLB/TTFB = time ` +
      `to last/first byte of one ${(apkBytes / MiB).toFixed(1)} MiB download ` +
      `(${runs[0].load.downloads} per target, after ${args.clients} warm-up downloads).`,
  ].join('\n');
}

export const downloadBench: Bench<typeof FLAGS> = {
  usage:
    'Benchmark: N clients downloading a large current APK from apkrelay, against nginx ' +
    '(sendfile) serving the same file.\n' +
    '  npm run bench:download [-- --clients 32] [-- --rounds 4] [-- --size 50] ' +
    '[-- --mode standalone|offload] [-- --json]',
  flags: FLAGS,
  async run(args, { say, onExit }) {
    const nginxBinary = await ensureNginx(); // fail (or install) before the slow parts
    say(`APK: ${args.size} MiB of random stored assets (built once, cached in the tmpdir)`);
    const apk = await benchApk({ payloadBytes: args.size * MiB, package: PACKAGE });
    const expectedBytes = (await stat(apk)).size;
    const expectedSha256 = await sha256File(apk);
    const offloadDir = args.mode === 'offload' ? await tmpfsDir(onExit) : null;
    say('starting services, API and workers (separate processes) ...');
    const deployment = await startDeployment({
      maxApkBytes: Math.max(64 * MiB, 2 * expectedBytes),
      // Behind nginx as ops/deploy/systemd/apkrelay.env runs it: plain HTTP, client addresses
      // from nginx's X-Forwarded-For.
      ...(offloadDir
        ? {
            tls: false,
            env: {
              DOWNLOAD_OFFLOAD: 'nginx',
              DOWNLOAD_OFFLOAD_DIR: offloadDir,
              TRUST_PROXY: 'loopback',
            },
          }
        : {}),
    });
    onExit(() => deployment.stop());
    const targets = await serveBoth(deployment, apk, nginxBinary, { onExit, say }, offloadDir);
    const options: LoadOptions = {
      clients: args.clients,
      rounds: args.rounds,
      expectedBytes,
      expectedSha256,
    };
    const { ca, relay: r, nginx: n } = targets;
    const name = offloadDir ? 'apkrelay (nginx offload)' : 'apkrelay (web host)';
    const relay = await measureTarget(name, r.url, ca, r.pids, options, say);
    const reference = await measureTarget('nginx (sendfile)', n.url, ca, n.pids, options, say);
    const runs = [relay, reference] as const;
    const json = {
      node: process.version,
      apkBytes: expectedBytes,
      clients: args.clients,
      rounds: args.rounds,
      mode: args.mode,
      ratio: {
        throughput: relay.mbPerSecond / reference.mbPerSecond,
        p50: relay.p50 / reference.p50,
        p99: relay.p99 / reference.p99,
        cpuPerGb: cpuPerGb(relay) / cpuPerGb(reference),
      },
      cpuSecondsPerGb: { apkrelay: cpuPerGb(relay), nginx: cpuPerGb(reference) },
      runs: runs.map(({ load, ...rest }) => ({ ...rest, ...load })),
    };
    return { json, text: report(args, runs, expectedBytes) };
  },
};

if (require.main === module) void runBench(downloadBench);
