/**
 * Benchmark: device registrations per second while an account's plan of N fills, on one API
 * process of a fresh deployment (embedded services, the default store).
 *
 *   npm run bench:registrations [-- --devices 1000,10000] [-- --concurrency 32] [-- --json]
 *
 * Per N (lib/registration-rounds.ts): the registration use-case the old way and the new way in
 * the same run, in alternating tenths (the ratio is new over old), then N registrations through
 * the API and N PushLink SDK subscribes of new devices. Each: registrations per second overall,
 * in the plan's first tenth and in its last tenth. Account, plan and app setup is not measured.
 */
import type { Deployment } from '../dev/deployment';
import { deploymentEnv } from './lib/fanout-setup';
import { MAX_DEVICES, startFleetDeployment } from './lib/fleet';
import {
  apiRound,
  storeRound,
  type ApiResult,
  type Rate,
  type RoundSetup,
  type StoreResult,
} from './lib/registration-rounds';
import {
  ratio,
  runBench,
  whole,
  wholes,
  type Args as BenchArgs,
  type Bench,
  type Flags,
} from './lib/runner';
import { agentFor } from './lib/transport';

const FLAGS = {
  devices: wholes(
    [1_000],
    [10, MAX_DEVICES, 10],
    `--devices takes multiples of 10 up to ${MAX_DEVICES}, e.g. 1000`,
    'plan sizes N, comma-separated, multiples of 10',
  ),
  concurrency: whole(
    32,
    [1, 256],
    '--concurrency takes requests in flight from 1 to 256',
    'requests in flight',
  ),
} as const satisfies Flags;

type Args = BenchArgs<typeof FLAGS>;

interface Round {
  readonly devices: number;
  readonly store: StoreResult;
  readonly api: ApiResult;
}

const f = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const x = (a: number, b: number) => ratio(a, b, 1);
const cells = (r: Rate | null) =>
  r ? `${f(r.perSecond)} | ${f(r.firstTenth)} | ${f(r.lastTenth)}` : '- | - | -';

function table(rounds: readonly Round[]): string {
  const rows = rounds.flatMap((r) => [
    `| ${r.devices} | use-case, before (no seat cursor, app read) | ${cells(r.store.before)} |`,
    `| ${r.devices} | use-case, after | ${cells(r.store.after)} |`,
    `| ${r.devices} | after / before | ${x(r.store.after.perSecond, r.store.before.perSecond)} | ` +
      `${x(r.store.after.firstTenth, r.store.before.firstTenth)} | ` +
      `${x(r.store.after.lastTenth, r.store.before.lastTenth)} |`,
    `| ${r.devices} | POST /api/v2/installations (HTTPS) | ${cells(r.api.http)} |`,
    `| ${r.devices} | PushLink subscribe, new device (TLS) | ${cells(r.api.pushlink)} |`,
  ]);
  return [
    '| N | path | per second | first tenth | last tenth |',
    '| - | ---- | ---------- | ----------- | ---------- |',
    ...rows,
  ].join('\n');
}

async function run(args: Args, d: Deployment, say: (t: string) => void): Promise<Round[]> {
  const agent = agentFor(d.adminUrl, { keepAlive: true, maxSockets: args.concurrency });
  try {
    const env = await deploymentEnv(d);
    const setup: RoundSetup = { d, agent, env, concurrency: args.concurrency, say };
    const rounds: Round[] = [];
    for (const n of args.devices) {
      say(`N=${n}: the registration use-case, before and after, alternating tenths ...`);
      const store = await storeRound(setup, n);
      say(`N=${n}: through the API and the PushLink listener ...`);
      rounds.push({ devices: n, store, api: await apiRound(setup, n) });
    }
    return rounds;
  } finally {
    agent.destroy();
  }
}

export const registrationsBench: Bench<typeof FLAGS> = {
  usage:
    'Benchmark: device registrations per second while a plan of N fills.\n' +
    '  npm run bench:registrations [-- --devices 1000,10000] [-- --concurrency 32] [-- --json]',
  flags: FLAGS,
  async run(args, ctx) {
    const d = await startFleetDeployment(
      args.devices,
      { maxApkBytes: 64 * 1024 * 1024, legacyPush: true },
      ctx,
    );
    const rounds = await run(args, d, ctx.say);
    const json = { node: process.version, concurrency: args.concurrency, rounds };
    return { json, text: `\n${table(rounds)}` };
  },
};

if (require.main === module) void runBench(registrationsBench);
