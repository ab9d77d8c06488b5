/**
 * `apkrelay device-sim --push-url U --base-url U --api-key K --package P --devices N`: a fleet of
 * N simulated devices in this process, each a full device-client instance with its own storage
 * directory (under --storage-dir, so a second run resumes the first one's queues). With --json,
 * one JSON object per line per device event: `{device, event, ...}` (registered, version,
 * downloaded, apply, giveup, exception, error…). Runs --duration-s seconds, or until SIGINT/SIGTERM,
 * then flushes exceptions for a few seconds and prints a summary on stderr.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { isStrategyName, type StrategyName } from '../../../device-client/core/strategies';
import type { LogLevel } from '../../../device-client/core/ports';
import { printLogger } from '../../../device-client/node/adapters';
import { startFleet, type FleetEvent } from '../../../device-client/simulator/fleet';

interface SimOptions {
  pushUrl: string;
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

function describe(e: FleetEvent): string {
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
  withOptions(command).action(runSim);
}

/** The command's options (see SimOptions). */
function withOptions(command: Command): Command {
  return command
    .requiredOption('--push-url <url>', 'push host, e.g. https://push.example.com', urlOption)
    .requiredOption('--base-url <url>', 'admin/API host (exceptions)', urlOption)
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

/** Runs the fleet until --duration-s or a signal, then prints the summary. */
async function runSim(opts: SimOptions): Promise<void> {
  const ca = opts.ca === undefined ? undefined : await readFile(opts.ca, 'utf8');
  const storageDir = opts.storageDir ?? path.join(os.tmpdir(), 'apkrelay-device-sim', opts.package);
  const counts = new Map<string, number>();
  const json = opts.json ?? false;
  const fleet = startFleet({
    pushUrl: opts.pushUrl,
    baseUrl: opts.baseUrl,
    apiKey: opts.apiKey,
    packageName: opts.package,
    devices: opts.devices,
    devicePrefix: opts.devicePrefix,
    installedMd5: opts.installedMd5 ?? null,
    strategy: opts.strategy,
    idle: opts.idle,
    applyIntervalMs: opts.applyIntervalMs,
    exceptions: opts.exceptions,
    storageDir,
    ...(ca !== undefined ? { ca } : {}),
    insecure: opts.insecure ?? false,
    startRate: opts.startRate,
    logger: printLogger('device-sim', undefined, opts.logLevel),
    onEvent: (e) => {
      const key = e.event === 'exception' ? `exception ${e.status}` : e.event;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      process.stdout.write(`${json ? JSON.stringify(e) : describe(e)}\n`);
    },
  });
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
  const closed = await fleet.close(opts.flushTimeoutS * 1000);
  const summary = [...counts].map(([k, v]) => `${k}: ${v}`).join(', ');
  process.stderr.write(
    `device-sim: ${opts.devices} devices; ${summary || 'no events'}; exceptions flushed on ${closed.flushed}, still queued on ${closed.unflushed} (kept in ${storageDir})\n`,
  );
}
