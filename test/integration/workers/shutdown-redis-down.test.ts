/**
 * Issue 33, "every process stops cleanly": a worker process whose Redis was stopped after it
 * started stops at once. Its Workers' connections are between reconnect attempts then, and BullMQ's
 * close waits for an 'end' event that ioredis never sends for a connection disconnected in that
 * state: the process waited for the close grace, then forever. Redis is reached through a TCP
 * proxy in front of the real one, stopped the way a stopped server is (connections dropped, then
 * refused). "At once" is a marker armed at the close grace before the close starts; and the close
 * leaves no timer that would keep the process alive (BullMQ's stalled-job check re-armed its wait
 * after the close when its command was pending on the dead connection).
 */
import { randomBytes } from 'node:crypto';
import { startWorkers } from '../../../workers/main';
import { holding, timersArmedBy } from '../../helpers/armed-timers';
import { eventually } from '../../helpers/eventually';
import { isolation, serviceUrls } from '../../helpers/services';
import { createLogger } from '../../../shared/log';
import { Writable } from 'node:stream';
import { startTcpProxy } from '../../helpers/tcp-proxy';
import { connectMongo } from '../../../shared/storage/mongo';

jest.setTimeout(120_000);

/** The Workers' close grace (workers/runtime.ts): a close that waited for it comes after this. */
const GRACE_MS = 10_000;
/** How long the proxy refuses once stopped: past the end of the file. */
const STOPPED_MS = 3_600_000;

test('Redis stopped: the worker process closes before a marker at the close grace', async () => {
  const { redisUrl, mongoUrl } = serviceUrls();
  const { port } = new URL(redisUrl);
  const proxy = await startTcpProxy(Number(port));
  const { database, prefix } = isolation();
  const errors: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      errors.push(chunk.toString());
      done();
    },
  });
  const workers = await startWorkers({
    log: createLogger('warn', {}, sink),
    redisUrl: redisUrl.replace(`:${port}`, `:${proxy.port}`),
    mongoUrl,
    database,
    queuePrefix: prefix,
    masterKey: randomBytes(32),
  });
  try {
    proxy.cutNow(STOPPED_MS);
    // Seen by the process: its connections report the refused reconnections.
    await eventually('a refused reconnection', () =>
      errors.some((e) => e.includes('connection error')),
    );
    let timer: NodeJS.Timeout | undefined;
    const marker = new Promise<'marker'>((resolve) => {
      timer = setTimeout(resolve, GRACE_MS, 'marker');
    });
    let first: 'closed' | 'marker' = 'marker';
    const armed = await timersArmedBy(async () => {
      first = await Promise.race([workers.close().then(() => 'closed' as const), marker]);
    });
    clearTimeout(timer);
    expect(first).toBe('closed');
    // A second marker, armed after every timer the close armed and no shorter: fires after them.
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(holding(armed)).toEqual([]);
  } finally {
    await proxy.close();
    const mongo = await connectMongo(mongoUrl, database);
    await mongo.db.dropDatabase();
    await mongo.close();
  }
});
