/**
 * Starts (or reuses) the real Redis and MongoDB-protocol server for the whole run: REDIS_URL /
 * MONGO_URL when given, else the project's embedded services under `.data/test-services`.
 * Each test file then isolates itself with its own database and queue prefix.
 */
import path from 'node:path';
import { ensureServices, type Services } from '../../ops/services/embedded';

export default async function globalSetup(): Promise<void> {
  const services = await ensureServices({
    redisUrl: process.env.REDIS_URL || undefined,
    mongoUrl: process.env.MONGO_URL || undefined,
    dataDir: path.resolve(__dirname, '../../.data/test-services'),
    searchPath: process.env.PATH ?? '/usr/bin:/bin',
  });
  process.env.APKRELAY_TEST_REDIS_URL = services.redisUrl;
  process.env.APKRELAY_TEST_MONGO_URL = services.mongoUrl;
  (globalThis as { __apkrelayServices?: Services }).__apkrelayServices = services;
}
