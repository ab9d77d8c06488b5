/**
 * The PushLink SDK side of the legacy push benchmark: N simulated SDK devices (lib/legacy-clients.ts)
 * hold TLS sockets on the API's legacy listener (LEGACY_PUSH_PORT), each subscribed with the
 * installed v1's MD5; the clock runs from `PUT /api/v2/apps/{package}/current` (v2) to each
 * socket's `{"mt":"0","msg":"<v2 md5>"}` line. Measured like the SSE side (lib/fanout-rounds.ts
 * `measure`): RSS per idle connection, p50/p99/last latency, CPU seconds.
 *
 * Setup (not measured): a fresh account and app, the plan raised to N, and all N installations
 * seeded (lib/fanout-seed.ts), so a subscribe refreshes an installation and claims no seat, as a
 * device that was registered earlier does when it reconnects. A device counts as connected once
 * its subscribe was handled (lib/legacy-clients.ts: the probe line).
 */
import type { SideResult } from './fanout-report';
import { connectCommand, deviceIds, measure, type RoundContext } from './fanout-rounds';
import { seedInstallations } from './fanout-seed';
import {
  accountId,
  createAccount,
  createApp,
  jsonRequest,
  loopback,
  setPlan,
} from './fanout-setup';

/**
 * Sockets subscribing at once, over all client processes. A subscribe is a registration (two
 * database requests for a known device: docs/benchmarks.md#registrations) where an SSE stream only
 * attaches; fewer in flight keeps each one's wait far below the connect timeout.
 */
const SUBSCRIBE_CONCURRENCY = 16;

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
  say(`N=${n}: PushLink sockets: uploading two APKs of ${pkg}, seeding ${n} installations ...`);
  const app = await createApp(d, apiKey, pkg);
  await seedInstallations({
    mongoUrl: ctx.mongoUrl,
    redisUrl: ctx.redisUrl,
    queuePrefix: ctx.queuePrefix,
    accountId: await accountId(d, agent, apiKey),
    package: pkg,
    installedMd5: app.installedMd5,
    deviceIds: deviceIds(n),
    plan: n,
  });
  say('  seeded; connecting PushLink sockets to the API ...');
  const target = new URL(`pushlink://127.0.0.1:${legacyPort}/`);
  target.searchParams.set('package', pkg);
  target.searchParams.set('hash', app.installedMd5);
  const current = loopback(d.adminUrl, `/api/v2/apps/${pkg}/current`);
  const auth = { authorization: `Bearer ${apiKey}` };
  const result = await measure(ctx, {
    pid: d.apiPid,
    connect: {
      ...connectCommand(d.ca, apiKey, n, target.toString()),
      concurrency: SUBSCRIBE_CONCURRENCY,
    },
    publish: async () => {
      const r = await jsonRequest(agent, d.ca, 'PUT', current, auth, { versionCode: 2 });
      if (r.status !== 200) throw new Error(`set current: HTTP ${r.status}`);
    },
  });
  say(`  connected in ${result.connectSeconds.toFixed(1)} s; fan-out measured`);
  return result;
}
