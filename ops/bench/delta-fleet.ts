/**
 * Benchmark (issue 37, "the fleet update end to end"): N simulated devices (real TypeScript
 * clients, default 50) run the old release of a real 18 MB APK (the UiAutomator2 server from the
 * npm registry, ops/bench/lib/npm-apks.ts, cached under `.data/bench-delta/`), online; the new
 * release is uploaded and made current, and every device updates. Run twice on one deployment,
 * one account each: via delta (the clients can read their installed APK, so they ask for the
 * patch, wait while it is made, apply it) and via full (they cannot: the full APK). Reported per
 * run: the HTTP body bytes the devices received from `/download` and `/download/delta`, in total
 * and per device, the time from the upload of the new release until the last device installed
 * it, and how each device's update came; the full run is the in-run baseline.
 *
 *   npm run bench:delta-fleet [-- --devices 50] [-- --json]
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ClientEvent } from '../../device-client/core/events';
import type { OpenResponse, Transport } from '../../device-client/core/ports';
import { noErrorCapture } from '../../device-client/node/adapters';
import { createNodeClient } from '../../device-client/node/index';
import { nodeTransport } from '../../device-client/node/transport';
import { startDeployment, type Deployment } from '../dev/deployment';
import { createAccount, setPlan } from './lib/fanout-setup';
import { npmApk, NPM_APPS } from './lib/npm-apks';
import { ratio, runBench, whole, type Bench, type BenchContext } from './lib/runner';
import { agentFor } from './lib/transport';
import { uploadCurrent } from './lib/upload-current';

const CACHE = path.resolve('.data/bench-delta');
const APP = NPM_APPS.find((a) => a.name === 'uiautomator2 server')!;
/** Consecutive releases (issue 37's table: whole-file patch about 27 % of the APK). */
const FROM = '10.6.2';
const TO = '10.6.4';
const PACKAGE = 'io.appium.uiautomator2.server';
const MB = 1e6;

type Via = 'delta' | 'full';

interface RunResult {
  readonly via: Via;
  readonly devices: number;
  readonly bytes: number;
  readonly bytesPerDevice: number;
  readonly uploadMs: number;
  readonly lastInstalledMs: number;
  /** How the updates came, as the clients report them (`delta`, `full`, `full:<fallback>`). */
  readonly outcomes: Record<string, number>;
}

/** A transport that counts the body bytes of every `/download` response it opens. */
function counting(inner: Transport, seen: { bytes: number }): Transport {
  return {
    request: (req) => inner.request(req),
    async open(req) {
      const res: OpenResponse = await inner.open(req);
      if (!new URL(req.url).pathname.startsWith('/download')) return res;
      const body = res.body;
      return {
        ...res,
        body: (async function* () {
          for await (const chunk of body) {
            seen.bytes += chunk.byteLength;
            yield chunk;
          }
        })(),
      };
    },
  };
}

interface Fleet {
  readonly installedAt: number[];
  readonly outcomes: Record<string, number>;
  close(): Promise<void>;
}

/** `count` devices on `oldFile`, online; each installs its update as soon as it is verified. */
async function startFleet(
  d: Deployment,
  apiKey: string,
  via: Via,
  oldFile: string,
  count: number,
  seen: { bytes: number },
): Promise<Fleet> {
  const old = await readFile(oldFile);
  const md5 = createHash('md5').update(old).digest('hex');
  const dir = await mkdtemp(path.join(tmpdir(), `apkrelay-delta-fleet-${via}-`));
  const transport = nodeTransport({ ca: d.ca });
  const fleet = { installedAt: [] as number[], outcomes: {} as Record<string, number> };
  const clients: ReturnType<typeof createNodeClient>[] = [];
  for (let i = 0; i < count; i++) {
    // The client says in its log when it did not use a patch, and why (the heartbeat's fallback).
    let outcome: string = via;
    const log = (_level: string, message: string) => {
      const why = /^patch for \S+ not used \(([a-z-]+)/.exec(message)?.[1];
      if (why) outcome = `full:${why}`;
    };
    const client = createNodeClient({ applyIntervalMs: 3_600_000 });
    let registered!: () => void;
    const ready = new Promise<void>((resolve) => (registered = resolve));
    client.on((e: ClientEvent) => {
      if (e.event === 'registered') registered();
      if (e.event === 'downloaded' && e.verified === true) void client.applyUpdate();
    });
    client.setCurrentStrategy('CUSTOM');
    client.start({
      apiKey,
      deviceId: `${via}-${i}`,
      packageName: PACKAGE,
      pushUrl: d.urls.push,
      baseUrl: d.urls.web,
      installedMd5: md5,
      ...(via === 'delta' ? { installedApkFile: oldFile, installedApkSize: old.length } : {}),
      storageDir: path.join(dir, String(i)),
      transport: counting(transport, seen),
      errorCapture: noErrorCapture,
      logger: { log },
      onInstall: () => {
        fleet.installedAt.push(performance.now());
        fleet.outcomes[outcome] = (fleet.outcomes[outcome] ?? 0) + 1;
      },
    });
    await ready;
    clients.push(client);
  }
  return {
    ...fleet,
    async close() {
      await Promise.all(clients.map((c) => c.close(1_000)));
      transport.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** One run: a fresh account, its fleet on the old APK, the new one made current, all updated. */
async function fleetRun(
  d: Deployment,
  via: Via,
  files: readonly [string, string],
  devices: number,
  { say }: BenchContext,
): Promise<RunResult> {
  // An account's plan seats 5 installations by default; past them a device is disabled.
  const email = `bench-delta-fleet-${via}-${Date.now()}@example.com`;
  const agent = agentFor(d.adminUrl, { keepAlive: true, maxSockets: 2 });
  const apiKey = await createAccount(d, agent, email);
  agent.destroy();
  await setPlan(d, email, devices);
  await uploadCurrent(d, apiKey, files[0]);
  const seen = { bytes: 0 };
  say(`${via}: ${devices} devices on ${FROM} coming online ...`);
  const fleet = await startFleet(d, apiKey, via, files[0], devices, seen);
  try {
    say(`${via}: ${TO} uploaded and made current; waiting for every device to install it ...`);
    const start = performance.now();
    await uploadCurrent(d, apiKey, files[1]);
    const uploadMs = performance.now() - start;
    say(`${via}: uploaded in ${(uploadMs / 1000).toFixed(1)} s`);
    for (let polls = 1; fleet.installedAt.length < devices; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (polls % 100 === 0) {
        say(
          `${via}: ${fleet.installedAt.length} of ${devices} installed, ${(seen.bytes / MB).toFixed(1)} MB so far`,
        );
      }
    }
    const lastInstalledMs = Math.max(...fleet.installedAt) - start;
    return {
      via,
      devices,
      bytes: seen.bytes,
      bytesPerDevice: seen.bytes / devices,
      uploadMs,
      lastInstalledMs,
      outcomes: fleet.outcomes,
    };
  } finally {
    await fleet.close();
  }
}

function line(r: RunResult): string {
  return (
    `${r.via}: ${(r.bytes / MB).toFixed(1)} MB in all, ${(r.bytesPerDevice / MB).toFixed(2)} MB per device; ` +
    `last device installed ${(r.lastInstalledMs / 1000).toFixed(1)} s after the upload started ` +
    `(upload and ingest ${(r.uploadMs / 1000).toFixed(1)} s); updates: ${JSON.stringify(r.outcomes)}`
  );
}

export const deltaFleetBench: Bench<{ devices: ReturnType<typeof whole> }> = {
  usage:
    'Benchmark: a fleet updating from a real 18 MB release to the next, via delta vs via full.\n' +
    '  npm run bench:delta-fleet [-- --devices 50 --json]',
  flags: {
    devices: whole(50, [1, 500], '--devices: a whole number from 1 to 500', 'simulated devices'),
  },
  async run(args, ctx) {
    const [from, to] = [await npmApk(CACHE, APP, FROM), await npmApk(CACHE, APP, TO)];
    if (!from || !to) throw new Error(`no ${APP.name} APK in ${APP.npmPackage} ${FROM}/${TO}`);
    const sizes = [(await readFile(from)).length, (await readFile(to)).length];
    ctx.say(`starting services, one API and one worker process ...`);
    const d = await startDeployment({ maxApkBytes: 64 * MB });
    ctx.onExit(() => d.stop());
    const delta = await fleetRun(d, 'delta', [from, to], args.devices, ctx);
    ctx.say(line(delta));
    const full = await fleetRun(d, 'full', [from, to], args.devices, ctx);
    ctx.say(line(full));
    const text = [
      `${args.devices} devices, ${APP.name} ${FROM} (${(sizes[0]! / MB).toFixed(1)} MB) → ${TO} (${(sizes[1]! / MB).toFixed(1)} MB)`,
      line(delta),
      line(full),
      `delta / full: bytes ${ratio(delta.bytes, full.bytes)}, time to the last install ${ratio(delta.lastInstalledMs, full.lastInstalledMs)}`,
    ].join('\n');
    return { json: { node: process.version, from: FROM, to: TO, sizes, delta, full }, text };
  },
};

if (require.main === module) void runBench(deltaFleetBench);
