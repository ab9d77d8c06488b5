/**
 * The worker process: MongoDB and a waiting Redis connection, the processors of every queue, and
 * one shutdown path (close workers, letting active jobs finish until the deadline; then Mongo).
 */
import type { Logger } from '../shared/log';
import { ensureIndexes } from '../shared/storage/indexes';
import { connectMongo } from '../shared/storage/mongo';
import { createProcessors } from './processors';
import { startWorkerRuntime } from './runtime';

export interface WorkerOptions {
  readonly log: Logger;
  readonly redisUrl: string;
  readonly mongoUrl: string;
  readonly database?: string;
  readonly queuePrefix: string;
  readonly dataDir: string;
  readonly masterKey: Buffer;
  readonly now?: () => number;
  readonly schedulers?: boolean;
}

export interface WorkerProcess {
  /** Waits for active jobs; the process-level deadline (ops/process/shutdown.ts) cuts it short. */
  close(): Promise<void>;
}

export async function startWorkers(options: WorkerOptions): Promise<WorkerProcess> {
  const mongo = await connectMongo(options.mongoUrl, options.database);
  try {
    await ensureIndexes(mongo.db);
    const runtime = await startWorkerRuntime({
      redisUrl: options.redisUrl,
      prefix: options.queuePrefix,
      log: options.log,
      processors: createProcessors({ dataDir: options.dataDir, now: options.now ?? Date.now }),
      schedulers: options.schedulers ?? true,
    });
    let closing: Promise<void> | undefined;
    return {
      close: () =>
        (closing ??= (async () => {
          await runtime.close();
          await mongo.close();
        })()),
    };
  } catch (err) {
    await mongo.close();
    throw err;
  }
}
