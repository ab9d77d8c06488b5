/**
 * The fleet simulator: N full client instances in one process, each with its own storage
 * directory (so a restart resumes its downloads and exception queue), sharing one HTTPS agent.
 * Each device reports its events as `{device, event, ...}`; the CLI (`apkrelay device-sim`)
 * prints them. A device never applies updates: with CUSTOM it keeps broadcasting APPLY.
 */
import path from 'node:path';
import type { DeviceClient } from '../core/client';
import type { ClientEvent } from '../core/events';
import type { Clock, Logger } from '../core/ports';
import type { StrategyName } from '../core/strategies';
import { noErrorCapture, printLogger } from '../node/adapters';
import { createNodeClient, type NodeStartParams } from '../node/index';
import { nodeTransport } from '../node/transport';

/** What every simulated fleet is given: whose devices, how many, and how to reach the server. */
export interface SimulatedFleetBase {
  /** Exceptions are sent there (and, for PushLink SDK devices, downloads are made there). */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly packageName: string;
  readonly devices: number;
  /** Device ids are `<prefix>-<n>` (n zero-padded); default `sim`. */
  readonly devicePrefix?: string;
  readonly installedMd5?: string | null;
  /** Distinct exceptions each device sends once started. */
  readonly exceptions?: number;
  readonly ca?: string;
  readonly insecure?: boolean;
  /** Devices started per second (spreads the TLS handshakes and registrations). */
  readonly startRate?: number;
}

export interface FleetOptions extends SimulatedFleetBase {
  readonly pushUrl: string;
  /** Metadata each device registers with, besides `simulator` (what rollouts target). */
  readonly metadata?: (deviceId: string) => Readonly<Record<string, string>>;
  readonly strategy?: StrategyName;
  readonly idle?: boolean;
  readonly applyIntervalMs?: number;
  readonly storageDir: string;
  readonly logger?: Logger;
  /** Every device's clock (default: the real one): see NodeStartParams.clock. */
  readonly clock?: Clock;
  readonly onEvent: (line: FleetEvent) => void;
}

export type FleetEvent = { readonly device: string } & ClientEvent;

export interface Fleet {
  readonly clients: ReadonlyArray<{
    readonly deviceId: string;
    readonly client: DeviceClient<NodeStartParams>;
  }>;
  /** Resolves once every device was started (not registered: watch the events for that). */
  readonly started: Promise<void>;
  /** Flushes each device's exceptions for at most `timeoutMs`, then closes everything. */
  close(timeoutMs: number): Promise<{ flushed: number; unflushed: number }>;
}

export function deviceIds(prefix: string, n: number): string[] {
  const width = String(n).length;
  return Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(width, '0')}`);
}

export function startFleet(o: FleetOptions): Fleet {
  const transport = nodeTransport({
    ...(o.ca !== undefined ? { ca: o.ca } : {}),
    insecure: o.insecure ?? false,
  });
  const logger = o.logger ?? printLogger('device-sim', undefined, 'warn');
  const clients = deviceIds(o.devicePrefix ?? 'sim', o.devices).map((deviceId) => {
    const client = createNodeClient({ applyIntervalMs: o.applyIntervalMs ?? 30_000 });
    client.on((event) => o.onEvent({ device: deviceId, ...event }));
    if (o.strategy) client.setCurrentStrategy(o.strategy);
    client.setCurrentActivity({ name: 'SimulatedActivity' });
    client.idle(o.idle ?? true);
    client.addMetadata('simulator', 'apkrelay device-sim');
    for (const [key, value] of Object.entries(o.metadata?.(deviceId) ?? {})) {
      client.addMetadata(key, value);
    }
    return { deviceId, client };
  });
  let closing = false;
  const rate = o.startRate ?? 1_000;
  const started = (async () => {
    for (let i = 0; i < clients.length; i++) {
      if (closing) return;
      const { deviceId, client } = clients[i]!;
      client.start({
        apiKey: o.apiKey,
        deviceId,
        packageName: o.packageName,
        appName: o.packageName,
        pushUrl: o.pushUrl,
        baseUrl: o.baseUrl,
        installedMd5: o.installedMd5 ?? null,
        device: { brand: 'apkrelay', model: 'device-sim', osVersion: '14', sdkInt: 34 },
        storageDir: path.join(o.storageDir, deviceId),
        transport,
        logger: { log: (level, m) => logger.log(level, `${deviceId}: ${m}`) },
        errorCapture: noErrorCapture,
        onInstall: () => undefined,
        ...(o.clock ? { clock: o.clock } : {}),
      });
      for (let e = 0; e < (o.exceptions ?? 0); e++) {
        client.sendAsyncException(new Error(`simulated exception ${e + 1} on ${deviceId}`), {
          simulator: 'true',
        });
      }
      // Pause every few devices so `rate` devices start per second.
      if ((i + 1) % Math.max(1, Math.ceil(rate / 20)) === 0) {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  })();
  return {
    clients,
    started,
    async close(timeoutMs) {
      closing = true;
      await started;
      const results = await Promise.all(clients.map(({ client }) => client.close(timeoutMs)));
      transport.destroy();
      const flushed = results.filter(Boolean).length;
      return { flushed, unflushed: results.length - flushed };
    },
  };
}
