/** What CLI commands share: the config (read once), a logger, and short-lived database access. */
import { loadConfig, processEnv, type Config } from '../../shared/config';
import { createKeyRing, type KeyRing } from '../../shared/crypto/keys';
import { resolveMasterKey } from '../../shared/crypto/master-key';
import { createLogger, type Logger } from '../../shared/log';
import { ensureIndexes } from '../../shared/indexes';
import { connectMongo } from '../../shared/storage/mongo';
import type { Db } from 'mongodb';
import { ensureServices } from '../services/embedded';
import { stepReporter } from '../services/steps';

let cached: Config | undefined;

/** The configuration; a ConfigError propagates to main, which prints it and exits non-zero. */
export function cliConfig(): Config {
  return (cached ??= loadConfig(processEnv()));
}

export function cliLogger(config: Config, role: string): Logger {
  return createLogger(config.logLevel, { role });
}

/**
 * Runs `fn` with the database, using the services `npm start` launched for the same DATA_DIR, or
 * starting them for the duration of the command.
 */
export async function withDatabase<T>(
  fn: (db: Db, keys: KeyRing, log: Logger) => Promise<T>,
): Promise<T> {
  const config = cliConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { role: 'cli' });
  const services = await ensureServices(config, stepReporter(process.stderr));
  try {
    const mongo = await connectMongo(services.mongoUrl);
    try {
      await ensureIndexes(mongo.db);
      const masterKey = await resolveMasterKey(config.masterKey, config.dataDir, log);
      return await fn(mongo.db, createKeyRing(masterKey, config.masterKeyPrevious), log);
    } finally {
      await mongo.close();
    }
  } finally {
    await services.stop();
  }
}

/** The master keys (MASTER_KEY, MASTER_KEY_PREVIOUS) alone, for commands without a database. */
export async function cliKeys(): Promise<KeyRing> {
  const config = cliConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { role: 'cli' });
  const masterKey = await resolveMasterKey(config.masterKey, config.dataDir, log);
  return createKeyRing(masterKey, config.masterKeyPrevious);
}

/** Prints a value as one JSON line (`--json`) or as text. */
export function output(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}
