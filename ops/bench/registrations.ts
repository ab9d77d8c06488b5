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
import { startDeployment, type Deployment } from '../dev/deployment';
import { deploymentEnv, ensureOpenFiles } from './lib/fanout-setup';
import {
  apiRound,
  storeRound,
  type ApiResult,
  type Rate,
  type RoundSetup,
  type StoreResult,
} from './lib/registration-rounds';
import { agentFor } from './lib/transport';

const MAX_DEVICES = 20_000;
const FD_HEADROOM = 2_048;

interface Args {
  readonly devices: number[];
  readonly concurrency: number;
  readonly json: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  let devices = [1_000];
  let concurrency = 32;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') json = true;
    else if (arg === '--devices') {
      devices = (argv[++i] ?? '').split(',').map(Number);
      if (devices.some((n) => !Number.isInteger(n) || n < 10 || n > MAX_DEVICES || n % 10)) {
        throw new Error(`--devices takes multiples of 10 up to ${MAX_DEVICES}, e.g. 1000`);
      }
    } else if (arg === '--concurrency') {
      concurrency = Number(argv[++i]);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
        throw new Error('--concurrency takes requests in flight from 1 to 256');
      }
    } else {
      throw new Error(`unknown argument ${arg ?? ''} (--devices, --concurrency, --json)`);
    }
  }
  return { devices, concurrency, json };
}

interface Round {
  readonly devices: number;
  readonly store: StoreResult;
  readonly api: ApiResult;
}

const f = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const cells = (r: Rate | null) =>
  r ? `${f(r.perSecond)} | ${f(r.firstTenth)} | ${f(r.lastTenth)}` : '- | - | -';

function table(rounds: readonly Round[]): string {
  const rows = rounds.flatMap((r) => [
    `| ${r.devices} | use-case, before (no seat cursor, app read) | ${cells(r.store.before)} |`,
    `| ${r.devices} | use-case, after | ${cells(r.store.after)} |`,
    `| ${r.devices} | after / before | ${f(r.store.after.perSecond / r.store.before.perSecond)}x | ` +
      `${f(r.store.after.firstTenth / r.store.before.firstTenth)}x | ` +
      `${f(r.store.after.lastTenth / r.store.before.lastTenth)}x |`,
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

async function main(argv: readonly string[]): Promise<void> {
  const args = parseArgs(argv);
  const say = (text: string) => {
    if (!args.json) process.stdout.write(`${text}\n`);
  };
  const files = await ensureOpenFiles(Math.max(...args.devices) + FD_HEADROOM);
  say(`open-file limit ${files}; starting services, one API and one worker process ...`);
  const d = await startDeployment({ maxApkBytes: 64 * 1024 * 1024, legacyPush: true });
  const onSignal = () => void d.stop().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const rounds = await run(args, d, say);
    const out = { node: process.version, concurrency: args.concurrency, rounds };
    process.stdout.write(`${args.json ? JSON.stringify(out) : `\n${table(rounds)}`}\n`);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await d.stop();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
