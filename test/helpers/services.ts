/** The real services started by global-setup, and per-file isolation (database, queue prefix). */
import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '../../shared/log';
import type { LogLevel } from '../../shared/config';
import { connectMongo, type Mongo } from '../../shared/storage/mongo';
import { track } from './resources';

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

/**
 * For a test file: a connection to the shared MongoDB-protocol server with a database of its
 * own, opened before all its tests and dropped and closed after them. Read `.mongo` in tests.
 */
export function useIsolatedMongo(): { readonly mongo: Mongo } {
  let mongo: Mongo | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await connectMongo(serviceUrls().mongoUrl, isolation().database);
    mongo = opened;
    close = track('mongo', async () => {
      await opened.db.dropDatabase();
      await opened.close();
    });
  });
  afterAll(() => close?.());
  return {
    get mongo(): Mongo {
      if (!mongo) throw new Error('useIsolatedMongo: read .mongo inside a test');
      return mongo;
    },
  };
}
