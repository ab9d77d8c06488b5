/**
 * The child processes of the exception benchmark (ops/bench/exceptions.ts), one role each, all
 * configured through one IPC message from the parent (no environment reads): an API process
 * (plain HTTP), the worker process, or a bare BullMQ worker with a no-op processor (the raw
 * baseline). Each answers `{type:'ready'}` and stops on `{type:'stop'}`.
 */
import { Worker } from 'bullmq';
import { startApi } from '../../api/main';
import { createLogger } from '../../shared/log';
import { closeRedis, createWorkerRedis } from '../../shared/storage/redis';
import { startWorkers } from '../../workers/main';

export interface RoleMessage {
  readonly type: 'role';
  readonly role: 'api' | 'workers' | 'raw-worker';
  readonly redisUrl: string;
  readonly mongoUrl: string;
  readonly database: string;
  readonly prefix: string;
  readonly masterKey: string;
  /** admin, web, push (api role only). */
  readonly ports: readonly [number, number, number];
  readonly rawQueue: string;
  readonly rawConcurrency: number;
}

async function start(m: RoleMessage): Promise<() => Promise<void>> {
  const log = createLogger('warn', { role: `bench-${m.role}` });
  const common = {
    log,
    redisUrl: m.redisUrl,
    mongoUrl: m.mongoUrl,
    database: m.database,
    queuePrefix: m.prefix,
    masterKey: Buffer.from(m.masterKey, 'base64'),
  };
  if (m.role === 'api') {
    const [admin, web, push] = m.ports;
    const base = `http://127.0.0.1:${admin}`;
    const api = await startApi({
      ...common,
      tls: undefined,
      host: '127.0.0.1',
      ports: { admin, web, push },
      publicUrls: { base, web: base, push: base },
      limits: { maxApkBytes: 1024 * 1024, uploadWaitTimeoutMs: 1_000 },
    });
    return () => api.close(2_000);
  }
  if (m.role === 'workers') {
    const workers = await startWorkers({ ...common, schedulers: false });
    return () => workers.close();
  }
  const connection = createWorkerRedis(m.redisUrl, 'bench:raw-worker');
  const worker = new Worker(m.rawQueue, () => Promise.resolve({ ok: true }), {
    connection,
    prefix: m.prefix,
    concurrency: m.rawConcurrency,
  });
  await worker.waitUntilReady();
  return async () => {
    await worker.close();
    await closeRedis(connection);
  };
}

/** Runs the role this process was forked for. */
export function runRole(): void {
  let stop: (() => Promise<void>) | undefined;
  process.on('message', (message: RoleMessage | { type: 'stop' }) => {
    if (message.type === 'role') {
      start(message).then(
        (s) => {
          stop = s;
          process.send?.({ type: 'ready' });
        },
        (err: unknown) => {
          process.send?.({ type: 'failed', message: (err as Error).message });
          process.exit(1);
        },
      );
    } else if (message.type === 'stop') {
      void (stop ? stop() : Promise.resolve()).finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => process.exit(0));
}
