/**
 * Starts (or reuses) the real Redis and MongoDB-protocol server for the whole run: REDIS_URL /
 * MONGO_URL when given, else the project's embedded services with the program's default backend
 * (EMBEDDED_MONGO_BACKEND, read by shared/config.ts). On SQLite they live under
 * `.data/test-services`; on PostgreSQL under `$TMPDIR/apkrelay-test-services-<checkout hash>`,
 * because run as root the cluster's system user must reach it, and `.data` is 0700 (see
 * ops/services/postgresql.ts).
 * Each test file then isolates itself with its own database and queue prefix. Several jest runs
 * may share the embedded services (developers run subsets side by side): each registers itself,
 * and the last one out stops them.
 * With APKRELAY_TEST_REDIS=cluster the run gets a Redis Cluster of its own instead of the single
 * Redis (test/helpers/redis-cluster.ts), stopped by global-teardown: `.ci/run` runs a subset of
 * the suites once more that way (see docs/testing.md).
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureServices, type Services } from '../../ops/services/embedded';
import { startRedisCluster, type RedisCluster } from './redis-cluster';
import { loadConfig } from '../../shared/config';

const { embeddedMongoBackend } = loadConfig({
  EMBEDDED_MONGO_BACKEND: process.env.EMBEDDED_MONGO_BACKEND,
});
const checkout = path.resolve(__dirname, '../..');
const checkoutId = createHash('sha256').update(checkout).digest('hex').slice(0, 12);
export const TEST_SERVICES_DIR =
  embeddedMongoBackend === 'sqlite'
    ? path.join(checkout, '.data/test-services')
    : path.join(os.tmpdir(), `apkrelay-test-services-${checkoutId}`);
export const usersDir = () => path.join(TEST_SERVICES_DIR, 'run', 'users');

export default async function globalSetup(): Promise<void> {
  const services = await ensureServices({
    redisUrl: process.env.REDIS_URL || undefined,
    mongoUrl: process.env.MONGO_URL || undefined,
    dataDir: TEST_SERVICES_DIR,
    embeddedMongoBackend,
    searchPath: process.env.PATH ?? '/usr/bin:/bin',
  });
  await mkdir(usersDir(), { recursive: true });
  await writeFile(path.join(usersDir(), String(process.pid)), '');
  process.env.APKRELAY_TEST_REDIS_URL = services.redisUrl;
  if (process.env.APKRELAY_TEST_REDIS === 'cluster') {
    const cluster = await startRedisCluster();
    (globalThis as { __apkrelayCluster?: RedisCluster }).__apkrelayCluster = cluster;
    process.env.APKRELAY_TEST_REDIS_URL = cluster.url;
  }
  process.env.APKRELAY_TEST_MONGO_URL = services.mongoUrl;
  (globalThis as { __apkrelayServices?: Services }).__apkrelayServices = services;
}
