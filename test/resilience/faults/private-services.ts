/**
 * A private Redis and MongoDB-protocol server for one fault test, on fixed loopback ports so they
 * can be stopped and started again at the same URL. The shared test services (global-setup) are
 * never touched: other test runs use them. Data directories are the caller's (a temporary
 * directory, or a small filesystem for disk-full tests); both servers keep their data across a
 * restart (Redis: append-only file; FerretDB: its backend's).
 * FerretDB runs on the backend the whole run uses: on PostgreSQL, a private FerretDB process over
 * the run's PostgreSQL cluster (its own database name per test, as every test file has), so
 * stopping "MongoDB" stops the server the application talks to. A caller giving `mongoDir` (a
 * small filesystem whose filling is the fault) gets SQLite, whose files are in that directory.
 */
import type { ChildProcess } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  ensureMongoServer,
  ensureRedisServer,
  type MongoKind,
} from '../../../ops/services/binaries';
import { freePort, isAlive, spawnService, stopPid, waitForPort } from '../../../ops/services/child';
import { mongoServerArgs, redisServerArgs } from '../../../ops/services/embedded';
import { ferretPostgresUrl, postgresDir } from '../../../ops/services/postgresql';
import { TEST_SERVICES_DIR } from '../../helpers/global-setup';
import { eventually } from '../../helpers/eventually';
import { track } from '../../helpers/resources';
import { startStack, type TestStack } from '../../helpers/stack';

export interface PrivateServices {
  readonly redisUrl: string;
  readonly mongoUrl: string;
  readonly mongoKind: MongoKind;
  /** SIGTERM (a graceful restart, as `systemctl restart` does); resolves once the process is gone. */
  stopRedis(): Promise<void>;
  /** SIGKILL: a crash, no shutdown of its own (what it acknowledged is in its append-only file). */
  killRedis(): Promise<void>;
  startRedis(): Promise<void>;
  stopMongo(): Promise<void>;
  startMongo(): Promise<void>;
  close(): Promise<void>;
}

const SEARCH_PATH = process.env.PATH ?? '/usr/bin:/bin';

export async function startPrivateServices(
  options: { mongoDir?: string } = {},
): Promise<PrivateServices> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-faults-'));
  const redisDir = path.join(root, 'redis');
  const mongoDir = options.mongoDir ?? path.join(root, 'mongo');
  await mkdir(redisDir, { recursive: true });
  await mkdir(mongoDir, { recursive: true });
  const redisBin = await ensureRedisServer(SEARCH_PATH);
  const mongo = await ensureMongoServer(SEARCH_PATH);
  const redisPort = await freePort();
  const mongoPort = await freePort();
  let redis: ChildProcess | undefined;
  let mongod: ChildProcess | undefined;
  const postgresUrl =
    mongo.kind === 'ferretdb' && !options.mongoDir ? await runPostgresUrl() : undefined;

  const stop = async (child: ChildProcess | undefined) => {
    if (child?.pid && isAlive(child.pid)) await stopPid(child.pid, 10_000);
  };
  const services: PrivateServices = {
    redisUrl: `redis://127.0.0.1:${redisPort}`,
    mongoUrl: `mongodb://127.0.0.1:${mongoPort}`,
    mongoKind: mongo.kind,
    async startRedis() {
      redis = spawnService(
        redisBin,
        redisServerArgs(redisDir, redisPort),
        path.join(root, 'redis.log'),
      );
      await waitForPort(redisPort, redis, 15_000, 'private redis-server');
    },
    async stopRedis() {
      await stop(redis);
      redis = undefined;
    },
    async killRedis() {
      if (redis?.pid && isAlive(redis.pid)) {
        process.kill(redis.pid, 'SIGKILL');
        const pid = redis.pid;
        await eventually('the killed redis-server to exit', () => !isAlive(pid), {
          intervalMs: 20,
        });
      }
      redis = undefined;
    },
    async startMongo() {
      mongod = spawnService(
        mongo.bin,
        mongoServerArgs(mongo.kind, mongoDir, mongoPort, postgresUrl ? 'postgresql' : 'sqlite'),
        path.join(root, `${mongo.kind}.log`),
        postgresUrl ? { FERRETDB_POSTGRESQL_URL: postgresUrl } : {},
      );
      await waitForPort(mongoPort, mongod, 30_000, `private ${mongo.kind}`);
    },
    async stopMongo() {
      await stop(mongod);
      mongod = undefined;
    },
    close: track('private services', async () => {
      await Promise.all([services.stopRedis(), services.stopMongo()]);
      await rm(root, { recursive: true, force: true });
    }),
  };
  try {
    await services.startRedis();
    await services.startMongo();
  } catch (err) {
    await services.close();
    throw err;
  }
  return services;
}

/** The run's PostgreSQL cluster (test/helpers/global-setup.ts), when it started one. */
async function runPostgresUrl(): Promise<string | undefined> {
  const socket = path.join(postgresDir(TEST_SERVICES_DIR), '.s.PGSQL.5432');
  const running = await access(socket).then(
    () => true,
    () => false,
  );
  return running ? ferretPostgresUrl(TEST_SERVICES_DIR) : undefined;
}

/**
 * For a test file: before all its tests, private services and a stack on them, handed to `ready`;
 * after all, both closed.
 */
export function usePrivateStack(
  ready: (services: PrivateServices, stack: TestStack) => void,
): void {
  let services: PrivateServices | undefined;
  let stack: TestStack | undefined;
  beforeAll(async () => {
    services = await startPrivateServices();
    stack = await startStack({ redisUrl: services.redisUrl, mongoUrl: services.mongoUrl });
    ready(services, stack);
  });
  afterAll(async () => {
    await stack?.close();
    await services?.close();
  });
}

/** `usePrivateStack` for a test file that reads both as properties (inside its tests). */
export function privateStack(): { readonly services: PrivateServices; readonly stack: TestStack } {
  let held: [PrivateServices, TestStack] | undefined;
  usePrivateStack((services, stack) => (held = [services, stack]));
  const get = () => {
    if (!held) throw new Error('privateStack: read it inside a test');
    return held;
  };
  return {
    get services() {
      return get()[0];
    },
    get stack() {
      return get()[1];
    },
  };
}
