/**
 * The rounds of `bench:registrations`: how many installations register per second while a plan of
 * N fills (the last tenth is where seat claims used to slow down: docs/push.md#plan-quantity).
 *
 * - `storeRound`: the registration use-case itself (shared/devices/installations.ts: the document,
 *   the seat, the status), called from this process against the deployment's database and Redis,
 *   old way and new way in the same run, in alternating chunks so both see the same load: the old
 *   way reads the app and claims seats without a cursor (random slots, then reads of all the
 *   account's seats), the new way takes the app as known and claims through the seat cursor. Each
 *   way has its own account, app and plan of N.
 * - `apiRound`: N registrations through `POST /api/v2/installations` (HTTPS, keep-alive), and N
 *   PushLink SDK subscribes of new devices on the legacy listener (TLS; each socket is held
 *   open until the round ends, as a fleet holds them), each with a plan of N.
 */
import type { Agent } from 'node:http';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { subscribeLine } from '../../../device-client/node/pushlink-replay';
import type { Account } from '../../../shared/accounts/types';
import { registerInstallation } from '../../../shared/devices/installations';
import { liveState } from '../../../shared/devices/live-state';
import { parseRegistration } from '../../../shared/devices/registration-input';
import { connectMongo } from '../../../shared/storage/mongo';
import { closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import type { Deployment } from '../../dev/deployment';
import { nowMs } from './fanout-clients';
import {
  accountId,
  createAccount,
  createApp,
  jsonRequest,
  loopback,
  setPlan,
  SERVERNAME,
  type BenchApp,
} from './fanout-setup';

/** Registrations per second: overall, and in the first and the last tenth of the plan. */
export interface Rate {
  readonly perSecond: number;
  readonly firstTenth: number;
  readonly lastTenth: number;
  readonly seconds: number;
}

export interface RoundSetup {
  readonly d: Deployment;
  readonly agent: Agent;
  readonly env: Readonly<Record<string, string>>;
  readonly concurrency: number;
  readonly say: (text: string) => void;
}

/** Runs `one(i)` for i in [from, to) with `concurrency` in flight; the done times (ms). */
async function pool(
  from: number,
  to: number,
  concurrency: number,
  one: (i: number) => Promise<void>,
) {
  const done: number[] = [];
  let next = from;
  const worker = async () => {
    for (let i = next++; i < to; i = next++) {
      await one(i);
      done.push(nowMs());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done;
}

/** The rate of a run from its start and its done times, with its first and last tenth. */
function rateOf(startMs: number, done: readonly number[]): Rate {
  const n = done.length;
  const sorted = [...done].sort((a, b) => a - b);
  const tenth = Math.max(1, Math.floor(n / 10));
  const at = (i: number) => sorted[Math.min(n - 1, Math.max(0, i))] ?? startMs;
  const seconds = (at(n - 1) - startMs) / 1000;
  return {
    perSecond: n / seconds,
    firstTenth: tenth / ((at(tenth - 1) - startMs) / 1000),
    lastTenth: tenth / ((at(n - 1) - at(n - 1 - tenth)) / 1000),
    seconds,
  };
}

/** An account with a plan of `n` and an app (v1 current), through the API and the CLI. */
async function benchAccount(s: RoundSetup, n: number, label: string) {
  const email = `bench-registrations-${label}-${n}-${Date.now()}@example.com`;
  const apiKey = await createAccount(s.d, s.agent, email);
  await setPlan(s.d, email, n);
  const app = await createApp(s.d, apiKey, `dev.apkrelay.bench.reg.${label}.n${n}`);
  const id = await accountId(s.d, s.agent, apiKey);
  const account: Account = { id, email, plan: { installations: n }, roles: ['owner'] };
  return { apiKey, app, account };
}

export interface StoreResult {
  readonly before: Rate;
  readonly after: Rate;
}

/** Rates from the times of consecutive tenths of a run (ms each). */
function rateOfTenths(n: number, tenthsMs: readonly number[]): Rate {
  const total = tenthsMs.reduce((a, b) => a + b, 0);
  const tenth = n / tenthsMs.length;
  return {
    perSecond: n / (total / 1000),
    firstTenth: tenth / ((tenthsMs[0] ?? NaN) / 1000),
    lastTenth: tenth / ((tenthsMs[tenthsMs.length - 1] ?? NaN) / 1000),
    seconds: total / 1000,
  };
}

/** The registration use-case, the old and the new way, alternating tenths of the plan. */
export async function storeRound(s: RoundSetup, n: number): Promise<StoreResult> {
  const ways = [await benchAccount(s, n, 'old'), await benchAccount(s, n, 'new')];
  const mongo = await connectMongo(s.env.MONGO_URL ?? '');
  const redis = createWorkerRedis(s.env.REDIS_URL ?? '', 'apkrelay:bench-registrations');
  const live = liveState(redis, s.env.QUEUE_PREFIX ?? 'apkrelay');
  const options = [{}, { appKnown: true, seatCursor: live.seatCursor }];
  const tenths: number[][] = [[], []];
  const chunk = n / 10;
  try {
    for (let k = 0; k < 10; k++) {
      for (const w of [0, 1]) {
        const { account, app } = ways[w]!;
        const t = nowMs();
        await pool(k * chunk, (k + 1) * chunk, s.concurrency, async (i) => {
          const input = registration(app, `dev-${i}`);
          const doc = await registerInstallation(mongo.db, account, input, new Date(), options[w]);
          if (doc.status !== 'enabled') throw new Error(`device ${i} was not enabled`);
        });
        tenths[w]!.push(nowMs() - t);
      }
      s.say(`    store: ${(k + 1) * chunk} of ${n} registered each way`);
    }
  } finally {
    await mongo.close();
    await closeRedis(redis);
  }
  return { before: rateOfTenths(n, tenths[0]!), after: rateOfTenths(n, tenths[1]!) };
}

function registration(app: BenchApp, deviceId: string) {
  return parseRegistration({ package: app.package, deviceId, installedMd5: app.installedMd5 });
}

export interface ApiResult {
  readonly http: Rate;
  readonly pushlink: Rate | null;
}

/** N registrations through the API, then N PushLink subscribes of new devices (held open). */
export async function apiRound(s: RoundSetup, n: number): Promise<ApiResult> {
  const viaHttp = await benchAccount(s, n, 'http');
  const url = loopback(s.d.adminUrl, '/api/v2/installations');
  const auth = { authorization: `Bearer ${viaHttp.apiKey}` };
  const httpStart = nowMs();
  const httpDone = await pool(0, n, s.concurrency, async (i) => {
    const body = { package: viaHttp.app.package, deviceId: `dev-${i}` };
    const reply = await jsonRequest(s.agent, s.d.ca, 'POST', url, auth, body);
    if (reply.status !== 200 || (reply.body as { status?: string }).status !== 'enabled') {
      throw new Error(`registration ${i}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
    }
  });
  const http = rateOf(httpStart, httpDone);
  s.say(`    API: ${n} registered, ${http.perSecond.toFixed(1)}/s`);
  if (s.d.legacyPushPort === null) return { http, pushlink: null };
  const viaSdk = await benchAccount(s, n, 'sdk');
  const sockets: TLSSocket[] = [];
  try {
    const start = nowMs();
    const done = await pool(0, n, s.concurrency, async (i) => {
      sockets.push(await subscribe(s.d, viaSdk.apiKey, viaSdk.app, `dev-${i}`));
    });
    return { http, pushlink: rateOf(start, done) };
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}

/** A line that is not a subscribe: its `mt 1` answer comes once the subscribe was handled. */
const PROBE = '{}\n';
const SUBSCRIBE_TIMEOUT_MS = 120_000;

/** Opens a PushLink socket, subscribes a new device, resolves once the subscribe was handled. */
function subscribe(d: Deployment, apiKey: string, app: BenchApp, deviceId: string) {
  return new Promise<TLSSocket>((resolve, reject) => {
    const port = d.legacyPushPort ?? 0;
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: d.ca, servername: SERVERNAME });
    const timer = setTimeout(
      () => fail(new Error(`${deviceId}: no answer in time`)),
      SUBSCRIBE_TIMEOUT_MS,
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      const line = subscribeLine({
        apiKey,
        package: app.package,
        deviceId,
        hash: app.installedMd5,
      });
      socket.write(line + PROBE);
    });
    socket.setEncoding('utf8');
    let seen = '';
    socket.on('data', (chunk: string) => {
      seen += chunk;
      if (!seen.includes('\n')) return;
      clearTimeout(timer);
      socket.off('error', fail);
      socket.on('error', () => undefined);
      if (!seen.startsWith('{"mt":"1"') || seen.includes('disabled')) {
        return fail(new Error(`${deviceId}: ${seen.trim()}`));
      }
      socket.removeAllListeners('data');
      resolve(socket);
    });
  });
}
