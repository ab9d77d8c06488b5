/** The real services started by global-setup, and per-file isolation (database, queue prefix). */
import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '../../shared/log';
import type { LogLevel } from '../../shared/config';

export function serviceUrls(): { redisUrl: string; mongoUrl: string } {
  const redisUrl = process.env.APKRELAY_TEST_REDIS_URL;
  const mongoUrl = process.env.APKRELAY_TEST_MONGO_URL;
  if (!redisUrl || !mongoUrl) throw new Error('test services are not running (global-setup)');
  return { redisUrl, mongoUrl };
}

/** A fresh database name and queue prefix, so test files never see each other's data. */
export function isolation(): { database: string; prefix: string } {
  const id = randomBytes(6).toString('hex');
  return { database: `test_${id}`, prefix: `test-${id}` };
}

export function testLogger(): Logger {
  return createLogger((process.env.TEST_LOG_LEVEL as LogLevel | undefined) ?? 'silent', {
    role: 'test',
  });
}
