/**
 * Benchmark: PushLink SDK devices (legacy push, LEGACY_PUSH_PORT) against SSE streams, on ONE
 * API process in the same run. For each N: N SSE streams (lib/fanout-clients.ts, as
 * `bench:fanout` measures them), then N simulated SDK 5.6.0 devices holding TLS sockets on the
 * legacy listener (lib/legacy-clients.ts), each side with a fresh account and app whose devices
 * run v1. Clock: from `PUT /api/v2/apps/{package}/current` (v2) to each SSE stream's `version`
 * event, or each socket's `{"mt":"0",...}` line: p50/p99/last. RSS per idle connection = (API
 * VmRSS with N idle connections - VmRSS before connecting) / N, read 5 s after the last connect,
 * with the V8 heap (used, reserved) and external memory read the same way from the API's
 * `/metrics` (lib/api-memory.ts); each side runs on a freshly started API process.
 * Both sides measure the same thing: devices registered before the "before" reading (100 through
 * the product, on this API process, the rest seeded as those registrations leave them) connecting
 * again. An SSE device's reconnect is a stream's attach; a PushLink device's is its subscribe,
 * which finds its registration unchanged and attaches without the database
 * (lib/legacy-rounds.ts). Until 2026-11-26 the PushLink side registered every device inside the
 * measured window, on an API that had run no registration before its "before" reading.
 * Printed with the ratios legacy/SSE and issue 18's targets at 10,000 (lib/legacy-report.ts).
 *
 *   npm run bench:legacy-push [-- --devices 1000,10000] [-- --clients 3] [-- --json]
 *
 * The clients run in separate processes (per side, `--clients` of them) so the client side does
 * not take the API's CPU; the open-file limit is raised as `bench:fanout` does. Setup is not
 * measured (lib/fanout-rounds.ts, lib/legacy-rounds.ts). The deployment and the client processes
 * are stopped at the end, also on error.
 */
import { randomBytes } from 'node:crypto';
import type { Deployment } from '../dev/deployment';
import { apiMemory } from './lib/api-memory';
import { ClientFleet } from './lib/fanout-clients';
import { apkrelayRound, type RoundContext } from './lib/fanout-rounds';
import { deploymentEnv, openFileLimit } from './lib/fanout-setup';
import { FD_HEADROOM, FLEET_FLAGS, startFleetDeployment } from './lib/fleet';
import { startLegacyFleet } from './lib/legacy-clients';
import { legacyRound } from './lib/legacy-rounds';
import {
  legacyTable,
  legacyVerdicts,
  P99_RATIO_TARGET,
  type LegacyRound,
} from './lib/legacy-report';
import { runBench, type Args as BenchArgs, type Bench, type Flags } from './lib/runner';
import { agentFor } from './lib/transport';

/** The deployment's METRICS_TOKEN: the bench reads the API's heap from its `/metrics`. */
const METRICS_TOKEN = randomBytes(18).toString('base64url');

const FLAGS = FLEET_FLAGS satisfies Flags;

type Args = BenchArgs<typeof FLAGS>;

/** The processes whose CPU time is reported, beside the client processes. */
function servicePids(d: Deployment): Record<string, number> {
  const pids: Record<string, number> = { api: d.apiPid, workers: d.workersPid };
  if (d.servicePids.mongo !== null) pids.mongo = d.servicePids.mongo;
  if (d.servicePids.redis !== null) pids.redis = d.servicePids.redis;
  return pids;
}

interface Fleets {
  readonly sse: ClientFleet;
  readonly legacy: ClientFleet;
}

async function run(
  args: Args,
  d: Deployment,
  fleets: Fleets,
  say: (text: string) => void,
): Promise<LegacyRound[]> {
  const needed = Math.max(...args.devices) + FD_HEADROOM;
  const apiFiles = await openFileLimit(d.apiPid);
  if (apiFiles < needed) throw new Error(`the API may open ${apiFiles} files, ${needed} needed`);
  if (d.legacyPushPort === null) throw new Error('the deployment has no legacy push listener');
  const agent = agentFor(d.adminUrl, { keepAlive: true, maxSockets: 8 });
  try {
    const env = await deploymentEnv(d);
    const ctx = (fleet: ClientFleet): RoundContext => ({
      d,
      mongoUrl: env.MONGO_URL ?? '',
      redisUrl: env.REDIS_URL ?? '',
      queuePrefix: env.QUEUE_PREFIX ?? 'apkrelay',
      fleet,
      agent,
      cpuPids: {
        ...servicePids(d),
        ...Object.fromEntries(fleet.pids.map((p, i) => [`client${i + 1}`, p])),
      },
      say,
      memory: () => apiMemory({ agent, ca: d.ca, adminUrl: d.adminUrl, token: METRICS_TOKEN }),
    });
    const rounds: LegacyRound[] = [];
    for (const n of args.devices) {
      const errors: Record<string, string> = {};
      const attempt = async <T>(side: string, f: () => Promise<T>): Promise<T | null> =>
        f().catch((err: unknown) => {
          errors[side] = (err as Error).message; // reported; the other side still runs
          say(`  ${side} round failed: ${errors[side]}`);
          return null;
        });
      // Each side on a fresh API process: its RSS must not start from the other side's heap.
      await d.stopApi();
      await d.startApi();
      const sse = await attempt('SSE', () => apkrelayRound(ctx(fleets.sse), n));
      await d.stopApi();
      await d.startApi();
      const legacy = await attempt('PushLink', () =>
        legacyRound(ctx(fleets.legacy), n, d.legacyPushPort ?? 0),
      );
      rounds.push({ devices: n, sse, legacy, errors });
    }
    return rounds;
  } finally {
    agent.destroy();
  }
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function report(args: Args, rounds: readonly LegacyRound[]): string {
  const detail = rounds.flatMap((r) =>
    (['sse', 'legacy'] as const).flatMap((side) => {
      const s = r[side];
      if (!s) return [];
      const cpu = Object.entries(s.cpuSeconds)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ');
      const m = s.memoryPerConnection;
      const heap = m
        ? `; per connection: V8 heap used ${kib(m.heapUsed)} (heap reserved ` +
          `${kib(m.heapTotal)}), external ${kib(m.external)}`
        : '';
      return [
        `N=${r.devices} ${side}: set current ${s.requestMs.toFixed(0)} ms, connect ` +
          `${s.connectSeconds.toFixed(1)} s, RSS ${(s.rssBefore / 2 ** 20).toFixed(0)} -> ` +
          `${(s.rssIdle / 2 ** 20).toFixed(0)} MiB, missing ${s.missing}, dropped ${s.dropped}; ` +
          `CPU s during fan-out: ${cpu}${heap}`,
      ];
    }),
  );
  return [
    '',
    legacyTable(rounds),
    '',
    ...detail,
    '',
    "latency: PUT .../current -> each SSE stream's version event / each PushLink socket's " +
      `mt 0 line; ${args.clients} client processes per side; RSS/conn = (API VmRSS with N idle ` +
      'connections - VmRSS before connecting) / N. Ratios are PushLink over SSE.',
    ...legacyVerdicts(rounds),
  ].join('\n');
}

export const legacyPushBench: Bench<typeof FLAGS> = {
  usage:
    'Benchmark: PushLink SDK sockets against SSE streams, N devices each, on one API process.\n' +
    '  npm run bench:legacy-push [-- --devices 1000,10000] [-- --clients 3] [-- --json]',
  flags: FLAGS,
  async run(args, ctx) {
    const { say, onExit } = ctx;
    const options = { maxApkBytes: 64 * 1024 * 1024, legacyPush: true, env: { METRICS_TOKEN } };
    const deployment = await startFleetDeployment(args.devices, options, ctx);
    const fleets: Fleets = {
      sse: ClientFleet.start(args.clients),
      legacy: startLegacyFleet(args.clients),
    };
    onExit(() => fleets.legacy.stop());
    onExit(() => fleets.sse.stop());
    const rounds = await run(args, deployment, fleets, say);
    const targets = { p99Ratio: P99_RATIO_TARGET, rssRatio: 1 };
    const verdicts = legacyVerdicts(rounds);
    const json = { node: process.version, clients: args.clients, targets, rounds, verdicts };
    return { json, text: report(args, rounds) };
  },
};

if (require.main === module) void runBench(legacyPushBench);
