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
import type { Deployment } from '../dev/deployment';
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
import { deploymentEnv, openFileLimit } from './lib/fanout-setup';
import { FD_HEADROOM, FLEET_FLAGS, startFleetDeployment } from './lib/fleet';
import { runBench, type Args as BenchArgs, type Bench, type Flags } from './lib/runner';
import { agentFor, transportLabel } from './lib/transport';

/** Data bytes of the baseline's event when apkrelay is not run (its version event's size). */
const DEFAULT_EVENT_BYTES = 520;
const SIDES = ['apkrelay', 'baseline', 'floor'] as const;

const FLAGS = {
  ...FLEET_FLAGS,
  sides: {
    kind: 'subset',
    values: SIDES,
    default: SIDES,
    error: '--sides takes apkrelay, baseline and/or floor, e.g. --sides baseline',
    help: 'what is measured: apkrelay, the baseline broadcaster, the bare-socket floor',
  },
  tls: {
    kind: 'choice',
    values: ['on', 'off'],
    default: 'on',
    error: '--tls takes on or off',
    help: 'off: plain HTTP everywhere, as behind a TLS-terminating proxy',
  },
} as const satisfies Flags;

type Args = BenchArgs<typeof FLAGS>;

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
    const tls =
      args.tls === 'on'
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

function report(rounds: readonly Round[], transport: string, clients: number): string {
  return [
    '',
    `transport: ${transport}`,
    table(rounds),
    '',
    details(rounds),
    '',
    'latency: PUT .../current (apkrelay) or POST /publish (baseline) -> each device receives ' +
      `its version event; ${clients} client processes; RSS/conn = (VmRSS with N idle ` +
      'streams - VmRSS before connecting) / N. floor: the same exchanges over bare sockets, ' +
      'no HTTP server.',
    ...verdicts(rounds),
  ].join('\n');
}

export const fanoutBench: Bench<typeof FLAGS> = {
  usage:
    'Benchmark: fan-out of a version notice to N connected devices, against a raw Node SSE ' +
    'broadcaster and a bare-socket floor.\n' +
    '  npm run bench:fanout [-- --devices 1000,10000] [-- --clients 3]\n' +
    '                       [-- --sides apkrelay,baseline,floor] [-- --tls off] [-- --json]',
  flags: FLAGS,
  async run(args, ctx) {
    const { say, onExit } = ctx;
    const transport = transportLabel(args.tls === 'on');
    say(`transport: ${transport}`);
    const deployment = await startFleetDeployment(
      args.devices,
      { maxApkBytes: 64 * 1024 * 1024, tls: args.tls === 'on' },
      ctx,
    );
    const fleet = ClientFleet.start(args.clients);
    onExit(() => fleet.stop());
    const keep = (b: Baseline) => onExit(() => b.stop());
    const rounds = await run(args, deployment, fleet, keep, say);
    const targets = { p99Ms: P99_TARGET_MS, rssPerStreamBytes: RSS_TARGET_BYTES };
    const json = {
      node: process.version,
      tls: args.tls,
      transport,
      clients: args.clients,
      targets,
      rounds,
      verdicts: verdicts(rounds),
    };
    return { json, text: report(rounds, transport, args.clients) };
  },
};

if (require.main === module) void runBench(fanoutBench);
