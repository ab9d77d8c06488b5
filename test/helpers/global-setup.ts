/**
 * Starts (or reuses) the real Redis and MongoDB-protocol server for the whole run: REDIS_URL /
 * MONGO_URL when given, else the project's embedded services under `.data/test-services`.
 * Each test file then isolates itself with its own database and queue prefix. Several jest runs
 * may share the embedded services (developers run subsets side by side): each registers itself,
 * and the last one out stops them.
 * With APKRELAY_TEST_REDIS=cluster the run gets a Redis Cluster of its own instead of the single
 * Redis (test/helpers/redis-cluster.ts), stopped by global-teardown: `.ci/run` runs a subset of
 * the suites once more that way (see docs/testing.md).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureServices, type Services } from '../../ops/services/embedded';
import { startRedisCluster, type RedisCluster } from './redis-cluster';

export const TEST_SERVICES_DIR = path.resolve(__dirname, '../../.data/test-services');
export const usersDir = () => path.join(TEST_SERVICES_DIR, 'run', 'users');

export default async function globalSetup(): Promise<void> {
  const services = await ensureServices({
    redisUrl: process.env.REDIS_URL || undefined,
    mongoUrl: process.env.MONGO_URL || undefined,
    dataDir: TEST_SERVICES_DIR,
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
