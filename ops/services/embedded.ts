/**
 * Embedded default services: when REDIS_URL / MONGO_URL are unset, apkrelay runs its own Redis and
 * MongoDB-protocol server on loopback with their data under DATA_DIR. The first process that needs
 * them starts them and records them in `DATA_DIR/run/services.json`; later processes using the same
 * DATA_DIR (the CLI while `npm start` runs, a second `start:api`) find and reuse them. Only the
 * process that started a service stops it.
 *
 * Both require a password generated into `DATA_DIR/secrets` (see service-secrets.ts): Redis by
 * `requirepass`, FerretDB by its SCRAM authentication (`--test-enable-new-auth`, the only way
 * FerretDB v1.24 enforces authentication on SQLite; a client without credentials gets "requires
 * authentication"). The URLs returned carry the password; `services.json` records them without.
 * A `mongod` found on PATH instead of FerretDB runs without authentication: loopback and the
 * 0700 DATA_DIR guard it (set MONGO_URL to a mongod with authentication for more).
 *
 * FerretDB stores its data in PostgreSQL by default (a cluster of its own, see postgresql.ts,
 * started before it and stopped after it), or in SQLite files with EMBEDDED_MONGO_BACKEND=sqlite.
 * A DATA_DIR holding a SQLite store and no cluster yet is refused on PostgreSQL rather than
 * silently started empty: see docs/storage.md for the migration.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../shared/config';
import { ensureMongoServer, ensureRedisServer, type MongoKind } from './binaries';
import { silentSteps, type Steps } from './steps';
import { restrictDataDir } from './data-dir';
import { lock } from './lock-file';
import { servicePassword } from './service-secrets';
import {
  ferretPostgresUrl,
  refuseSqliteStore,
  startPostgres,
  type PostgresRecord,
} from './postgresql';
import {
  freePort,
  isAlive,
  portAnswers,
  signalPid,
  spawnService,
  stopPid,
  waitForPort,
} from './child';

interface ServiceRecord {
  pid: number;
  port: number;
  /** A unix socket answering instead of the loopback port (PostgreSQL). */
  socket?: string;
  /** Without credentials: this file is a record, not a secret. */
  url: string;
  /** Set by versions that start the service with a password. */
  auth?: boolean;
}
type Backend = Config['embeddedMongoBackend'];
interface StateFile {
  redis?: ServiceRecord;
  mongo?: ServiceRecord & { kind: MongoKind; backend?: Backend };
  postgresql?: PostgresRecord;
}
/** A process this one started, and how it stops; `last` ones stop after the others. */
interface Started {
  pid: number;
  signal: NodeJS.Signals;
  last: boolean;
}
type ServicesConfig = Pick<
  Config,
  'redisUrl' | 'mongoUrl' | 'dataDir' | 'searchPath' | 'embeddedMongoBackend'
>;

export interface Services {
  readonly redisUrl: string;
  readonly mongoUrl: string;
  /** Stops what this process started; leaves reused or external services alone. Idempotent. */
  stop(): Promise<void>;
  /**
   * Asks what this process started to stop, without waiting: for a forced exit, so that even then
   * no service outlives its owner (each one finishes its own clean stop on SIGTERM).
   */
  signalStop(): void;
}

const STOP_GRACE_MS = 8_000;

/** `steps`: what is being done, said as it happens (steps.ts); default: nothing printed. */
export async function ensureServices(
  config: ServicesConfig,
  steps: Steps = silentSteps,
): Promise<Services> {
  await restrictDataDir(config.dataDir);
  if (config.redisUrl && config.mongoUrl) {
    return {
      redisUrl: config.redisUrl,
      mongoUrl: config.mongoUrl,
      stop: async () => {},
      signalStop: () => {},
    };
  }
  const runDir = path.join(config.dataDir, 'run');
  await mkdir(runDir, { recursive: true });
  const release = await lock(path.join(runDir, 'services.lock'));
  const started: Started[] = [];
  try {
    const stateFile = path.join(runDir, 'services.json');
    const state = await readState(stateFile);
    let redisUrl = config.redisUrl;
    if (!redisUrl) {
      if (!(await reusable(state.redis))) {
        state.redis = await startRedis(config.dataDir, config.searchPath, steps);
        started.push({ pid: state.redis.pid, signal: 'SIGTERM', last: false });
      }
      redisUrl = withPassword(state.redis!.url, '', await servicePassword(config.dataDir, 'redis'));
    }
    const mongoUrl = config.mongoUrl ?? (await embeddedMongo(config, state, started, steps));
    await writeFile(stateFile, JSON.stringify(state, null, 2));
    let stopping: Promise<void> | undefined;
    return {
      redisUrl,
      mongoUrl,
      stop: () =>
        (stopping ??= (async () => {
          await stopAll(started);
          if (started.length > 0) await rm(stateFile, { force: true });
        })()),
      signalStop: () => started.forEach((s) => signalPid(s.pid, s.signal)),
    };
  } catch (err) {
    await stopAll(started);
    throw err;
  } finally {
    await release();
  }
}

/** The others first, then the `last` ones (PostgreSQL after the FerretDB using it). */
async function stopAll(started: readonly Started[]): Promise<void> {
  for (const last of [false, true]) {
    const now = started.filter((s) => s.last === last);
    await Promise.all(now.map((s) => stopPid(s.pid, STOP_GRACE_MS, s.signal)));
  }
}

/** The embedded MongoDB-protocol server's URL (with credentials), started when not running. */
async function embeddedMongo(
  config: ServicesConfig,
  state: StateFile,
  started: Started[],
  steps: Steps,
): Promise<string> {
  if (!(await reusable(state.mongo))) {
    const { kind, bin } = await ensureMongoServer(config.searchPath, steps);
    const backend = kind === 'ferretdb' ? config.embeddedMongoBackend : undefined;
    let postgresUrl: string | undefined;
    if (backend === 'postgresql') {
      await refuseSqliteStore(config.dataDir);
      if (!(await reusable(state.postgresql))) {
        state.postgresql = await startPostgres(config.dataDir, config.searchPath, steps);
        started.push({ pid: state.postgresql.pid, signal: 'SIGINT', last: true });
      }
      postgresUrl = await ferretPostgresUrl(config.dataDir);
    }
    const server = { kind, bin, backend, postgresUrl };
    state.mongo = await steps.run(`starting ${kind}`, () => startMongo(config.dataDir, server));
    started.push({ pid: state.mongo.pid, signal: 'SIGTERM', last: false });
  }
  const mongo = state.mongo!;
  if (mongo.kind !== 'ferretdb') return mongo.url;
  const password = await servicePassword(config.dataDir, 'mongo');
  return withPassword(mongo.url + '/?authSource=admin', MONGO_USER, password);
}

/** Stops every service recorded for a DATA_DIR, whoever started it. */
export async function stopRecordedServices(dataDir: string): Promise<void> {
  const file = path.join(dataDir, 'run', 'services.json');
  const state = await readState(file);
  const records: Started[] = [state.redis, state.mongo]
    .filter((r): r is ServiceRecord => r !== undefined)
    .map((r) => ({ pid: r.pid, signal: 'SIGTERM', last: false }));
  if (state.postgresql) records.push({ pid: state.postgresql.pid, signal: 'SIGINT', last: true });
  await stopAll(records);
  await rm(file, { force: true });
}

/** The services recorded for a DATA_DIR and whether each still answers. */
export async function readServicesState(
  dataDir: string,
): Promise<Record<string, ServiceRecord & { running: boolean }>> {
  const state = await readState(path.join(dataDir, 'run', 'services.json'));
  const out: Record<string, ServiceRecord & { running: boolean }> = {};
  for (const [name, record] of Object.entries(state) as [string, ServiceRecord][]) {
    out[name] = { ...record, running: await reusable(record) };
  }
  return out;
}

async function readState(file: string): Promise<StateFile> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as StateFile;
  } catch {
    return {};
  }
}

async function reusable(record: ServiceRecord | undefined): Promise<boolean> {
  const running =
    record !== undefined &&
    isAlive(record.pid) &&
    (await portAnswers(record.socket ?? record.port));
  if (running && record.auth !== true && !('kind' in record && record.kind === 'mongod')) {
    throw new Error(
      `the service recorded at ${record.url} (pid ${record.pid}) runs without a password; ` +
        'it was started by an older apkrelay: stop it (`apkrelay services stop`) and start again',
    );
  }
  return running;
}

const MONGO_USER = 'apkrelay';

function withPassword(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString().replace(/\/$/, '');
}

/**
 * redis-server's arguments for a private instance on loopback: durable enough for a queue (fsync
 * every second), never evicting job data.
 */
export function redisServerArgs(dir: string, port: number, configFile?: string): string[] {
  return [
    // A config file, if any, comes first (redis-server's rule); it holds what must stay off `ps`.
    ...(configFile ? [configFile] : []),
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    ...['--appendonly', 'yes', '--appendfsync', 'everysec'],
    ...['--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--protected-mode', 'yes'],
  ];
}

/**
 * The MongoDB-protocol server's arguments (mongod, or FerretDB on SQLite or PostgreSQL) on
 * loopback. FerretDB's PostgreSQL URL holds a password: it goes in FERRETDB_POSTGRESQL_URL.
 */
export function mongoServerArgs(
  kind: MongoKind,
  dir: string,
  port: number,
  backend: Backend = 'sqlite',
): string[] {
  return kind === 'mongod'
    ? ['--dbpath', dir, '--bind_ip', '127.0.0.1', '--port', String(port), '--quiet']
    : [
        ...(backend === 'sqlite' ? ['--handler=sqlite', `--sqlite-url=file:${dir}/`] : []),
        ...(backend === 'postgresql' ? ['--handler=postgresql'] : []),
        `--listen-addr=127.0.0.1:${port}`,
        `--state-dir=${dir}`,
        '--telemetry=disable',
        '--debug-addr=-',
        '--log-level=warn',
      ];
}

async function startRedis(
  dataDir: string,
  searchPath: string,
  steps: Steps,
): Promise<ServiceRecord> {
  const bin = await ensureRedisServer(searchPath, steps);
  return steps.run('starting redis-server', () => runRedis(bin, dataDir));
}

async function runRedis(bin: string, dataDir: string): Promise<ServiceRecord> {
  const dir = path.join(dataDir, 'redis');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const password = await servicePassword(dataDir, 'redis');
  const configFile = path.join(dir, 'redis.conf');
  await writeFile(configFile, `requirepass ${password}\n`, { mode: 0o600 });
  const port = await freePort();
  const args = redisServerArgs(dir, port, configFile);
  const child = spawnService(bin, args, path.join(dir, 'redis.log'));
  await waitForPort(port, child, 15_000, 'redis-server');
  return { pid: child.pid!, port, url: `redis://127.0.0.1:${port}`, auth: true };
}

async function startMongo(
  dataDir: string,
  server: { kind: MongoKind; bin: string; backend: Backend | undefined; postgresUrl?: string },
): Promise<NonNullable<StateFile['mongo']>> {
  const { kind, bin, backend } = server;
  const dir = path.join(dataDir, kind);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const port = await freePort();
  const ferret = kind === 'ferretdb';
  const args = [
    ...mongoServerArgs(kind, dir, port, backend),
    ...(ferret ? ['--test-enable-new-auth'] : []),
  ];
  // The setup user is created on first start (in `admin`), kept in the store afterwards.
  const env: Record<string, string> = ferret
    ? {
        FERRETDB_SETUP_DATABASE: 'admin',
        FERRETDB_SETUP_USERNAME: MONGO_USER,
        FERRETDB_SETUP_PASSWORD: await servicePassword(dataDir, 'mongo'),
        ...(server.postgresUrl ? { FERRETDB_POSTGRESQL_URL: server.postgresUrl } : {}),
      }
    : {};
  const child = spawnService(bin, args, path.join(dir, `${kind}.log`), env);
  await waitForPort(port, child, 30_000, kind);
  const url = `mongodb://127.0.0.1:${port}`;
  return { pid: child.pid!, port, url, kind, auth: ferret, ...(backend ? { backend } : {}) };
}
