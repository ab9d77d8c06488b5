/**
 * `apkrelay device-sim --push-url U --base-url U --api-key K --package P --devices N`: a fleet of
 * N simulated devices in this process, each a full device-client instance with its own storage
 * directory (under --storage-dir, so a second run resumes the first one's queues). With --json,
 * one JSON object per line per device event: `{device, event, ...}` (registered, version,
 * downloaded, apply, giveup, exception, error…). Runs --duration-s seconds, or until SIGINT/SIGTERM,
 * then flushes exceptions for a few seconds and prints a summary on stderr.
 *
 * `--protocol pushlink --legacy-push HOST:PORT`: the devices are PushLink SDK 5.x devices instead
 * (device-client/simulator/pushlink-fleet.ts) on the legacy push listener; downloads and
 * exceptions go to --base-url as the SDK sends them, and --apply installs verified downloads.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { isStrategyName, type StrategyName } from '../../../device-client/core/strategies';
import type { LogLevel } from '../../../device-client/core/ports';
import { printLogger } from '../../../device-client/node/adapters';
import {
  startFleet,
  type FleetEvent,
  type SimulatedFleetBase,
} from '../../../device-client/simulator/fleet';
import { startPushlinkFleet } from '../../../device-client/simulator/pushlink-fleet';

interface SimOptions {
  protocol: 'apkrelay' | 'pushlink';
  pushUrl?: string;
  legacyPush?: { host: string; port: number };
  sdk: '5.6.0' | '5.0.3';
  apply?: boolean;
  heartbeatS: number;
  baseUrl: string;
  apiKey: string;
  package: string;
  devices: number;
  devicePrefix: string;
  installedMd5?: string;
  strategy: StrategyName;
  idle: boolean;
  applyIntervalMs: number;
  exceptions: number;
  durationS?: number;
  storageDir?: string;
  startRate: number;
  flushTimeoutS: number;
  logLevel: LogLevel;
  json?: boolean;
  ca?: string;
  insecure?: boolean;
}

function urlOption(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an http:// or https:// URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InvalidArgumentError('must be an http:// or https:// URL');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function hostPortOption(value: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(value);
  const port = Number(m?.[2]);
  if (!m || port < 1 || port > 65_535) throw new InvalidArgumentError('must be HOST:PORT');
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function integerOption(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return n;
  };
}

function choice<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`must be one of ${values.join(', ')}`);
    return value as T;
  };
}

function describe(e: { readonly device: string; readonly event: string }): string {
  const { device, event, ...rest } = e;
  const details = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${device} ${event}${details ? ` ${details}` : ''}`;
}

export function register(program: Command): void {
  const command = program
    .command('device-sim')
    .description('Simulate a fleet of devices (full client instances) against a server.');
  withOptions(withProtocol(command)).action(runSim);
}

/** Which devices: this project's client (the default) or PushLink SDK devices, and where. */
function withProtocol(command: Command): Command {
  return command
    .option(
      '--protocol <p>',
      "apkrelay (this project's client) or pushlink (the PushLink SDK 5.x)",
      choice(['apkrelay', 'pushlink'] as const),
      'apkrelay',
    )
    .option('--push-url <url>', 'apkrelay: push host, e.g. https://push.example.com', urlOption)
    .option('--legacy-push <host:port>', 'pushlink: the legacy push listener', hostPortOption)
    .option(
      '--sdk <version>',
      'pushlink: SDK version',
      choice(['5.6.0', '5.0.3'] as const),
      '5.6.0',
    )
    .option('--apply', 'pushlink: install verified downloads (reconnect with the new hash)')
    .option('--heartbeat-s <s>', 'pushlink: heartbeat interval', integerOption(1, 86_400), 30)
    .requiredOption(
      '--base-url <url>',
      'admin/API host (exceptions; pushlink: downloads too)',
      urlOption,
    );
}

/** The command's other options (see SimOptions). */
function withOptions(command: Command): Command {
  return command
    .requiredOption('--api-key <key>', 'API key of the account')
    .requiredOption('--package <name>', 'Android package of the app')
    .requiredOption('--devices <n>', 'number of devices', integerOption(1, 100_000))
    .option('--device-prefix <prefix>', 'device ids are <prefix>-<n>', 'sim')
    .option('--installed-md5 <md5>', 'MD5 of the APK the devices run', (v: string) => {
      if (!/^[0-9a-f]{32}$/i.test(v)) throw new InvalidArgumentError('must be an MD5 in hex');
      return v.toLowerCase();
    })
    .option(
      '--strategy <s>',
      'update strategy',
      (v: string) => {
        if (!isStrategyName(v)) throw new InvalidArgumentError('must be a strategy name');
        return v;
      },
      'STATUS_BAR',
    )
    .option(
      '--idle <bool>',
      'idle flag (true|false)',
      (v: string) => choice(['true', 'false'] as const)(v) === 'true',
      true,
    )
    .option(
      '--apply-interval-ms <ms>',
      'CUSTOM: APPLY broadcast period',
      integerOption(10, 86_400_000),
      30_000,
    )
    .option(
      '--exceptions <n>',
      'distinct exceptions each device sends',
      integerOption(0, 10_000),
      0,
    )
    .option(
      '--duration-s <s>',
      'run this long, then stop (default: until a signal)',
      integerOption(1, 31_536_000),
    )
    .option(
      '--storage-dir <dir>',
      'where each device keeps its state (default: a folder in the temp dir)',
    )
    .option('--start-rate <n>', 'devices started per second', integerOption(1, 100_000), 1_000)
    .option(
      '--flush-timeout-s <s>',
      'at the end, how long to wait for queued exceptions',
      integerOption(0, 3_600),
      5,
    )
    .option(
      '--log-level <level>',
      'device log lines on stderr',
      choice(['debug', 'info', 'warn', 'error'] as const),
      'warn',
    )
    .option('--json', 'one JSON object per line per device event')
    .option('--ca <file>', 'trust this PEM certificate (e.g. a self-signed server certificate)')
    .option('--insecure', 'do not verify the server certificate');
}

/** What a running fleet of either protocol gives the command: closing, and its summary line. */
interface RunningFleet {
  close(): Promise<string>;
}

type OnEvent = (e: { readonly device: string; readonly event: string; status?: unknown }) => void;

/** Runs the fleet until --duration-s or a signal, then prints the summary. */
async function runSim(opts: SimOptions, command: Command): Promise<void> {
  if (opts.protocol === 'apkrelay' && opts.pushUrl === undefined)
    command.error("error: required option '--push-url <url>' not specified");
  if (opts.protocol === 'pushlink' && opts.legacyPush === undefined)
    command.error("error: --protocol pushlink needs '--legacy-push <host:port>'");
  const ca = opts.ca === undefined ? undefined : await readFile(opts.ca, 'utf8');
  const counts = new Map<string, number>();
  const json = opts.json ?? false;
  const onEvent: OnEvent = (e) => {
    const key =
      e.event === 'exception' && typeof e.status === 'string' ? `exception ${e.status}` : e.event;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    process.stdout.write(`${json ? JSON.stringify(e) : describe(e)}\n`);
  };
  const fleet =
    opts.protocol === 'pushlink'
      ? pushlinkFleet(opts, ca, onEvent)
      : apkrelayFleet(opts, ca, onEvent);
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      clearTimeout(timer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (opts.durationS !== undefined) timer = setTimeout(stop, opts.durationS * 1000);
  });
  const tail = await fleet.close();
  const summary = [...counts].map(([k, v]) => `${k}: ${v}`).join(', ');
  process.stderr.write(`device-sim: ${opts.devices} devices; ${summary || 'no events'}${tail}\n`);
}

/** What both kinds of fleet take from the options. */
function fleetBase(opts: SimOptions, ca: string | undefined): SimulatedFleetBase {
  return {
    baseUrl: opts.baseUrl,
    apiKey: opts.apiKey,
    packageName: opts.package,
    devices: opts.devices,
    devicePrefix: opts.devicePrefix,
    installedMd5: opts.installedMd5 ?? null,
    exceptions: opts.exceptions,
    ...(ca !== undefined ? { ca } : {}),
    insecure: opts.insecure ?? false,
    startRate: opts.startRate,
  };
}

function apkrelayFleet(opts: SimOptions, ca: string | undefined, onEvent: OnEvent): RunningFleet {
  const storageDir = opts.storageDir ?? path.join(os.tmpdir(), 'apkrelay-device-sim', opts.package);
  const fleet = startFleet({
    ...fleetBase(opts, ca),
    pushUrl: opts.pushUrl!,
    strategy: opts.strategy,
    idle: opts.idle,
    applyIntervalMs: opts.applyIntervalMs,
    storageDir,
    logger: printLogger('device-sim', undefined, opts.logLevel),
    onEvent: (e: FleetEvent) => onEvent(e),
  });
  return {
    async close() {
      const closed = await fleet.close(opts.flushTimeoutS * 1000);
      return `; exceptions flushed on ${closed.flushed}, still queued on ${closed.unflushed} (kept in ${storageDir})`;
    },
  };
}

function pushlinkFleet(opts: SimOptions, ca: string | undefined, onEvent: OnEvent): RunningFleet {
  const fleet = startPushlinkFleet({
    ...fleetBase(opts, ca),
    host: opts.legacyPush!.host,
    port: opts.legacyPush!.port,
    sdk: opts.sdk,
    heartbeatSeconds: opts.heartbeatS,
    apply: opts.apply ?? false,
    onEvent,
  });
  return {
    async close() {
      await fleet.close();
      return ' (PushLink SDK devices)';
    },
  };
}
