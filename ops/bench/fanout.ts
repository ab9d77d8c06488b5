/**
 * Benchmark: fan-out of a version notice to N connected devices. N raw SSE clients (spread over a
 * few client processes, HTTPS with keep-alive agents; plain HTTP with `--tls off`) hold streams on
 * ONE API process; the clock runs from the `PUT /api/v2/apps/{package}/current` request to each
 * device's `version` event (API → notice appended to Redis and published → API relays to its
 * streams). Reported: p50/p99/last per-device latency and the API's RSS per idle stream (VmRSS
 * with N idle streams minus VmRSS before connecting, over N), against a minimal raw Node SSE
 * broadcaster (lib/fanout-baseline.ts, own process) driven by the same clients for the same N in
 * the same run, and against a floor: the same exchanges over bare sockets with no HTTP server
 * (node:tls, or node:net), which shows what a stream costs before any HTTP stack: over TLS, most
 * of it is OpenSSL's per-connection state.
 *
 *   npm run bench:fanout [-- --devices 1000,10000] [-- --clients 3]
 *                        [-- --sides apkrelay,baseline,floor] [-- --tls off] [-- --json]
 *
 * `--tls off` measures the deployment as it runs behind a TLS-terminating proxy: TLS=off (plain
 * HTTP listeners advertising http:// URLs), every request and stream of the bench over node:http,
 * and the broadcaster on http.createServer. The report and the JSON say which transport it was.
 *
 * Setup is not measured: an account per round, its plan raised by `apkrelay account set-plan`,
 * two APKs, the first installations registered through the API and the rest seeded into the
 * database with the same documents (lib/fanout-rounds.ts says why). A round whose connect phase
 * passes its deadline is reported as failed and the baseline still runs. All traffic is on
 * loopback; the deployment, the broadcaster and the client processes are stopped at the end,
 * also on error.
 */
import path from 'node:path';
import { startDeployment, type Deployment } from '../dev/deployment';
import { startBaseline, type Baseline } from './lib/fanout-baseline';
import { ClientFleet } from './lib/fanout-clients';
import {
  details,
  P99_TARGET_MS,
  RSS_TARGET_BYTES,
  table,
  verdicts,
  type Round,
  type SideResult,
} from './lib/fanout-report';
import { apkrelayRound, baselineRound, type RoundContext } from './lib/fanout-rounds';
import { deploymentEnv, ensureOpenFiles, openFileLimit } from './lib/fanout-setup';
import { agentFor, transportLabel } from './lib/transport';

const MAX_DEVICES = 20_000;
/** Open files beyond the streams: the API's own sockets, Mongo/Redis connections, files. */
const FD_HEADROOM = 2_048;
/** Data bytes of the baseline's event when apkrelay is not run (its version event's size). */
const DEFAULT_EVENT_BYTES = 520;
const SIDES = ['apkrelay', 'baseline', 'floor'] as const;
type SideName = (typeof SIDES)[number];

interface Args {
  readonly devices: number[];
  readonly clients: number;
  readonly sides: readonly SideName[];
  /** false: `--tls off` (plain HTTP everywhere). */
  readonly tls: boolean;
  readonly json: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  let devices = [1_000, 10_000];
  let clients = 3;
  let sides: SideName[] = [...SIDES];
  let tls = true;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') json = true;
    else if (arg === '--devices') {
      devices = (argv[++i] ?? '').split(',').map(Number);
      if (devices.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_DEVICES)) {
        throw new Error(
          `--devices takes counts from 1 to ${MAX_DEVICES}, e.g. --devices 1000,10000`,
        );
      }
    } else if (arg === '--clients') {
      clients = Number(argv[++i]);
      if (!Number.isInteger(clients) || clients < 1 || clients > 8) {
        throw new Error('--clients takes a count of client processes from 1 to 8');
      }
    } else if (arg === '--sides') {
      const named = (argv[++i] ?? '').split(',');
      sides = SIDES.filter((side) => named.includes(side));
      if (sides.length === 0 || sides.length !== named.length) {
        throw new Error('--sides takes apkrelay, baseline and/or floor, e.g. --sides baseline');
      }
    } else if (arg === '--tls') {
      const value = argv[++i];
      if (value !== 'on' && value !== 'off') throw new Error('--tls takes on or off');
      tls = value === 'on';
    } else {
      throw new Error(
        `unknown argument ${arg ?? ''} (--devices, --clients, --sides, --tls, --json)`,
      );
    }
  }
  return { devices, clients, sides, tls, json };
}

async function run(
  args: Args,
  d: Deployment,
  fleet: ClientFleet,
  keep: (b: Baseline) => void,
  say: (text: string) => void,
): Promise<Round[]> {
  const needed = Math.max(...args.devices) + FD_HEADROOM;
  const apiFiles = await openFileLimit(d.apiPid);
  if (apiFiles < needed) throw new Error(`the API may open ${apiFiles} files, ${needed} needed`);
  // For the deployment and the broadcaster alike: both speak HTTPS, or both plain HTTP.
  const agent = agentFor(d.adminUrl, { keepAlive: true, maxSockets: 8 });
  try {
    const env = await deploymentEnv(d);
    const tlsDir = path.join(env.DATA_DIR ?? '', 'tls');
    const tls = args.tls
      ? {
          certFile: path.join(tlsDir, 'self-signed.crt'),
          keyFile: path.join(tlsDir, 'self-signed.key'),
        }
      : null;
    const baseline = await startBaseline(tls, 'http');
    keep(baseline);
    const floor = await startBaseline(tls, 'socket');
    keep(floor);
    const cpuPids: Record<string, number> = { api: d.apiPid, workers: d.workersPid };
    if (d.servicePids.mongo !== null) cpuPids.mongo = d.servicePids.mongo;
    if (d.servicePids.redis !== null) cpuPids.redis = d.servicePids.redis;
    fleet.pids.forEach((pid, i) => (cpuPids[`client${i + 1}`] = pid));
    const ctx: RoundContext = {
      d,
      mongoUrl: env.MONGO_URL ?? '',
      redisUrl: env.REDIS_URL ?? '',
      queuePrefix: env.QUEUE_PREFIX ?? 'apkrelay',
      fleet,
      agent,
      cpuPids,
      say,
    };
    const rounds: Round[] = [];
    for (const n of args.devices) {
      let apkrelay: SideResult | null = null;
      let apkrelayError: string | null = null;
      if (args.sides.includes('apkrelay')) {
        try {
          apkrelay = await apkrelayRound(ctx, n);
        } catch (err) {
          apkrelayError = (err as Error).message; // reported; the baseline still runs
          say(`  apkrelay round failed: ${apkrelayError}`);
        }
      }
      const bytes = apkrelay?.eventBytes || DEFAULT_EVENT_BYTES;
      const base = args.sides.includes('baseline')
        ? await baselineRound(ctx, 'baseline', baseline, n, bytes)
        : null;
      const bare = args.sides.includes('floor')
        ? await baselineRound(ctx, 'floor', floor, n, bytes)
        : null;
      const ratio = apkrelay && base ? apkrelay.latency.p99 / base.latency.p99 : null;
      rounds.push({ devices: n, apkrelay, apkrelayError, baseline: base, floor: bare, ratio });
    }
    return rounds;
  } finally {
    agent.destroy();
  }
}

async function main(argv: readonly string[]): Promise<void> {
  const args = parseArgs(argv);
  const say = (text: string) => {
    if (!args.json) process.stdout.write(`${text}\n`);
  };
  const files = await ensureOpenFiles(Math.max(...args.devices) + FD_HEADROOM);
  const transport = transportLabel(args.tls);
  say(`open-file limit ${files}; starting services, one API and one worker process ...`);
  say(`transport: ${transport}`);
  const deployment = await startDeployment({ maxApkBytes: 64 * 1024 * 1024, tls: args.tls });
  const fleet = ClientFleet.start(args.clients);
  const yardsticks: Baseline[] = [];
  const stopAll = async () => {
    fleet.stop();
    await Promise.all(yardsticks.map((b) => b.stop().catch(() => undefined)));
    await deployment.stop();
  };
  const onSignal = () => void stopAll().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const rounds = await run(args, deployment, fleet, (b) => yardsticks.push(b), say);
    const lines = verdicts(rounds);
    if (args.json) {
      const targets = { p99Ms: P99_TARGET_MS, rssPerStreamBytes: RSS_TARGET_BYTES };
      const out = {
        node: process.version,
        tls: args.tls ? 'on' : 'off',
        transport,
        clients: args.clients,
        targets,
        rounds,
        verdicts: lines,
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
    } else {
      say('');
      say(`transport: ${transport}`);
      say(table(rounds));
      say('');
      say(details(rounds));
      say('');
      say(
        'latency: PUT .../current (apkrelay) or POST /publish (baseline) -> each device receives ' +
          `its version event; ${args.clients} client processes; RSS/conn = (VmRSS with N idle ` +
          'streams - VmRSS before connecting) / N. floor: the same exchanges over bare sockets, ' +
          'no HTTP server.',
      );
      for (const line of lines) say(line);
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await stopAll();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
