/**
 * The PushLink SDK side of the legacy push benchmark: N simulated SDK devices (lib/legacy-clients.ts)
 * hold TLS sockets on the API's legacy listener (LEGACY_PUSH_PORT), each subscribed with the
 * installed v1's MD5; the clock runs from `PUT /api/v2/apps/{package}/current` (v2) to each
 * socket's `{"mt":"0","msg":"<v2 md5>"}` line. Measured like the SSE side (lib/fanout-rounds.ts
 * `measure`): RSS and heap per idle connection, p50/p99/last latency, CPU seconds.
 *
 * Setup (not measured), the same as the SSE side's: a fresh account and app, the plan raised to N,
 * the first `API_REGISTRATIONS` devices registered through the product (here: their subscribe on
 * a socket, closed again; the SSE side registers over HTTPS) and the rest seeded
 * (lib/fanout-seed.ts) as that subscribe would have registered them, card fingerprint included.
 * So on both sides every device is registered before the "before" reading, and what is measured
 * is N devices that were registered earlier connecting again (after an API restart, say): for an
 * SSE device a stream's attach, for a PushLink device its subscribe, which finds its fingerprint
 * and attaches without the database (shared/devices/store.ts `subscribeDevice`). Until
 * 2026-11-26 the PushLink side's devices were seeded without their subscribe's fields, so every
 * subscribe of the measured phase registered in full, inside the RSS window, while the SSE side
 * had registered before it. A device counts as connected once its subscribe was handled
 * (lib/legacy-clients.ts: the probe line).
 */
import { parseDeviceLine } from '../../../shared/devices/pushlink-protocol';
import type { SideResult } from './fanout-report';
import {
  API_REGISTRATIONS,
  connectCommand,
  deviceIds,
  measure,
  seedRest,
  type RoundContext,
} from './fanout-rounds';
import { createAccount, createApp, jsonRequest, loopback, setPlan } from './fanout-setup';
import { benchSubscribeLine } from './legacy-clients';

/**
 * Sockets subscribing at once when they register (the setup's first devices): a registration makes
 * database requests (docs/benchmarks.md#registrations) where a known device's subscribe makes none.
 */
const REGISTER_CONCURRENCY = 16;

/** What the product reads from a bench device's subscribe line. */
function registrationOf(apiKey: string, pkg: string, hash: string, deviceId: string) {
  const line = benchSubscribeLine({ apiKey }, pkg, hash, deviceId).trimEnd();
  const parsed = parseDeviceLine(Buffer.from(line));
  if (parsed.kind !== 'subscribe') throw new Error(`bench subscribe line refused: ${line}`);
  return parsed.subscribe.registration;
}

/** PushLink SDK sockets with N devices of a fresh account and app: set v2 current on v1. */
export async function legacyRound(
  ctx: RoundContext,
  n: number,
  legacyPort: number,
): Promise<SideResult> {
  const { d, agent, say } = ctx;
  const email = `bench-legacy-${n}-${Date.now()}@example.com`;
  const apiKey = await createAccount(d, agent, email);
  await setPlan(d, email, n);
  const pkg = `dev.apkrelay.bench.legacy.n${n}`;
  say(`N=${n}: PushLink sockets: uploading two APKs of ${pkg}, registering ${n} installations ...`);
  const app = await createApp(d, apiKey, pkg);
  const target = new URL(`pushlink://127.0.0.1:${legacyPort}/`);
  target.searchParams.set('package', pkg);
  target.searchParams.set('hash', app.installedMd5);
  const ids = deviceIds(n);
  const viaApi = ids.slice(0, API_REGISTRATIONS);
  const command = connectCommand(d.ca, apiKey, n, target.toString());
  await ctx.fleet.connect({ ...command, deviceIds: viaApi, concurrency: REGISTER_CONCURRENCY });
  await ctx.fleet.disconnect();
  const seeded = ids.slice(viaApi.length);
  const registration = (id: string) => registrationOf(apiKey, pkg, app.installedMd5, id);
  const round = { apiKey, package: pkg, installedMd5: app.installedMd5, plan: n, registration };
  await seedRest(ctx, round, seeded);
  say(
    `  ${viaApi.length} subscribed once, ${seeded.length} seeded; connecting PushLink sockets ...`,
  );
  const current = loopback(d.adminUrl, `/api/v2/apps/${pkg}/current`);
  const auth = { authorization: `Bearer ${apiKey}` };
  const result = await measure(ctx, {
    pid: d.apiPid,
    connect: command,
    publish: async () => {
      const r = await jsonRequest(agent, d.ca, 'PUT', current, auth, { versionCode: 2 });
      if (r.status !== 200) throw new Error(`set current: HTTP ${r.status}`);
    },
  });
  say(`  connected in ${result.connectSeconds.toFixed(1)} s; fan-out measured`);
  return result;
}
