/**
 * One measured side of a fan-out round: connect N streams, let them idle, read RSS, publish, wait
 * for every device's `version` event. `apkrelayRound` prepares apkrelay's side first (account, plan,
 * app, installations); `baselineRound` points the same clients at a yardstick (the raw
 * broadcaster, or the bare-socket floor: lib/fanout-baseline.ts).
 */
import type { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSnapshot } from './cpu-time';
import type { Deployment } from '../../dev/deployment';
import type { Baseline } from './fanout-baseline';
import { nowMs, type ClientFleet, type ConnectCommand } from './fanout-clients';
import { latency, type SideResult } from './fanout-report';
import { seedInstallations, type SeedSpec } from './fanout-seed';
import {
  accountId,
  createAccount,
  createApp,
  jsonRequest,
  loopback,
  registerDevices,
  SERVERNAME,
  setPlan,
} from './fanout-setup';
import { perConnection, type ApiMemory } from './api-memory';
import { rssBytes } from './rss';

const CONNECT_CONCURRENCY = 96;
const CONNECT_TIMEOUT_MS = 120_000;
/**
 * Bound of a whole connect phase. With the hub's per-connection query (a full scan of the
 * installations on the embedded database server), apkrelay connects about 2 streams/s at 1,000
 * installations and far fewer at 10,000: that round then fails here instead of running for hours.
 */
const CONNECT_PHASE_MS = 15 * 60_000;
const EVENT_TIMEOUT_MS = 60_000;
/** Idle time after connecting before reading RSS, and after disconnecting before what follows. */
const SETTLE_MS = 5_000;
/**
 * Registrations through the API per round, two at a time; the rest are seeded (lib/fanout-seed.ts).
 * Seat claims (shared/devices/seats.ts) fall back to reading all the account's seats, a full scan
 * on the embedded database server, when random slots are taken, so they slow down as the plan
 * fills; before the random-slot change this ran at about 4 registrations/s at 900 seats.
 */
export const API_REGISTRATIONS = 100;
const REGISTER_CONCURRENCY = 2;

export interface RoundContext {
  readonly d: Deployment;
  readonly mongoUrl: string;
  readonly redisUrl: string;
  readonly queuePrefix: string;
  readonly fleet: ClientFleet;
  readonly agent: Agent;
  readonly cpuPids: Readonly<Record<string, number>>;
  readonly say: (text: string) => void;
  /** The measured process's heap and external memory (lib/api-memory.ts), when it serves them. */
  readonly memory?: () => Promise<ApiMemory>;
}

export interface Side {
  readonly pid: number;
  readonly connect: ConnectCommand;
  /** Sends the publishing request; resolves when it answered. */
  publish(): Promise<void>;
}

export async function measure(ctx: RoundContext, side: Side, extraPids = {}): Promise<SideResult> {
  const { fleet } = ctx;
  const rssBefore = (await rssBytes(side.pid)) ?? NaN;
  const memBefore = await ctx.memory?.();
  const connectStart = nowMs();
  try {
    await fleet.connect(side.connect);
  } catch (err) {
    await fleet.disconnect();
    throw err;
  }
  const connectSeconds = (nowMs() - connectStart) / 1000;
  await sleep(SETTLE_MS);
  const rssIdle = (await rssBytes(side.pid)) ?? NaN;
  const memIdle = await ctx.memory?.();
  const n = side.connect.deviceIds.length;
  const cpuUsed = await cpuSnapshot({ ...ctx.cpuPids, ...extraPids });
  const collecting = fleet.collect('version', EVENT_TIMEOUT_MS);
  collecting.catch(() => undefined); // awaited below; a failed publish must not leave it unhandled
  const start = nowMs();
  await side.publish();
  const requestMs = nowMs() - start;
  const got = await collecting;
  const cpuSeconds = await cpuUsed();
  await fleet.disconnect();
  await sleep(SETTLE_MS);
  const early = got.times.filter((t) => t < start).length;
  if (early > 0) throw new Error(`${early} version events arrived before the publishing request`);
  return {
    latency: latency(start, got.times),
    missing: got.missing,
    dropped: got.dropped,
    requestMs,
    rssBefore,
    rssIdle,
    rssPerConnection: (rssIdle - rssBefore) / n,
    ...(memBefore && memIdle ? { memoryPerConnection: perConnection(memBefore, memIdle, n) } : {}),
    eventBytes: got.sampleBytes,
    connectSeconds,
    cpuSeconds,
  };
}

export const deviceIds = (n: number) => Array.from({ length: n }, (_, i) => `fanout-${n}-${i}`);

export function connectCommand(ca: string, apiKey: string, n: number, url: string): ConnectCommand {
  return {
    url,
    servername: SERVERNAME,
    ca,
    apiKey,
    deviceIds: deviceIds(n),
    concurrency: CONNECT_CONCURRENCY,
    timeoutMs: CONNECT_TIMEOUT_MS,
    deadline: Date.now() + CONNECT_PHASE_MS,
  };
}

/**
 * Seeds the round's devices beyond those registered through the product (lib/fanout-seed.ts), in
 * the deployment's database and Redis.
 */
export async function seedRest(
  ctx: RoundContext,
  round: Pick<SeedSpec, 'package' | 'installedMd5' | 'plan' | 'registration'> & {
    readonly apiKey: string;
  },
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  const { apiKey, ...spec } = round;
  await seedInstallations({
    ...spec,
    mongoUrl: ctx.mongoUrl,
    redisUrl: ctx.redisUrl,
    queuePrefix: ctx.queuePrefix,
    accountId: await accountId(ctx.d, ctx.agent, apiKey),
    deviceIds: ids,
  });
}

/** apkrelay with N devices of a fresh account and app: set v2 current while they run v1. */
export async function apkrelayRound(ctx: RoundContext, n: number): Promise<SideResult> {
  const { d, agent, say } = ctx;
  // One account per round: seat claims then scan only this round's seats.
  const email = `bench-fanout-${n}-${Date.now()}@example.com`;
  const apiKey = await createAccount(d, agent, email);
  await setPlan(d, email, n);
  const pkg = `dev.apkrelay.bench.fanout.n${n}`;
  say(`N=${n}: uploading two APKs of ${pkg}, registering ${n} installations ...`);
  const app = await createApp(d, apiKey, pkg);
  const ids = deviceIds(n);
  const started = nowMs();
  const viaApi = ids.slice(0, API_REGISTRATIONS);
  const url = await registerDevices(d, agent, apiKey, app, viaApi, REGISTER_CONCURRENCY);
  const seeded = ids.slice(viaApi.length);
  await seedRest(ctx, { apiKey, package: pkg, installedMd5: app.installedMd5, plan: n }, seeded);
  say(
    `  ${viaApi.length} registered through the API, ${seeded.length} seeded, in ` +
      `${((nowMs() - started) / 1000).toFixed(1)} s; connecting to the API ...`,
  );
  const current = loopback(d.adminUrl, `/api/v2/apps/${pkg}/current`);
  const auth = { authorization: `Bearer ${apiKey}` };
  const result = await measure(ctx, {
    pid: d.apiPid,
    connect: connectCommand(d.ca, apiKey, n, url),
    publish: async () => {
      const r = await jsonRequest(agent, d.ca, 'PUT', current, auth, { versionCode: 2 });
      if (r.status !== 200) throw new Error(`set current: HTTP ${r.status}`);
    },
  });
  say(`  connected in ${result.connectSeconds.toFixed(1)} s; fan-out measured`);
  return result;
}

/** A yardstick (the raw broadcaster, or the floor) with N devices, events of `eventBytes` data. */
export async function baselineRound(
  ctx: RoundContext,
  name: 'baseline' | 'floor',
  baseline: Baseline,
  n: number,
  eventBytes: number,
): Promise<SideResult> {
  ctx.say(`N=${n}: ${name} round ...`);
  const publishUrl = `${baseline.url}/publish?bytes=${eventBytes}`;
  const streamUrl = `${baseline.url}/stream?package=baseline`;
  return measure(
    ctx,
    {
      pid: baseline.pid,
      connect: connectCommand(ctx.d.ca, 'baseline-token', n, streamUrl),
      publish: async () => {
        const r = await jsonRequest(ctx.agent, ctx.d.ca, 'POST', publishUrl, {});
        if (r.status !== 200) throw new Error(`${name} publish: HTTP ${r.status}`);
      },
    },
    { [name]: baseline.pid },
  );
}
