/**
 * Issue 33, "every process stops cleanly": the API's queue events connection is closed at once
 * when Redis is down, not after the close's whole deadline, and gracefully (BullMQ's own close, to
 * its end) when Redis is up. Redis is reached through a TCP proxy in front of the real one, which
 * stops the way a stopped server does (connections dropped, then refused); a Redis refused from
 * the start is a port nothing listens on. "At once" is a marker: a timer armed at the deadline,
 * before the close starts, fires after a close that waited for the deadline.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Connections } from '../../../api/connections';
import { freePort } from '../../../ops/services/child';
import { closeRedis } from '../../../shared/storage/redis';
import { eventually } from '../../helpers/eventually';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, testLogger } from '../../helpers/services';
import { startTcpProxy } from '../../helpers/tcp-proxy';

jest.setTimeout(120_000);

/** Far longer than any close here takes, so a close that resolves before it did not wait for it. */
const DEADLINE_MS = 60_000;
/** How long the proxy refuses once stopped: past the end of the file. */
const STOPPED_MS = 3_600_000;

/** The API's connections to `redisUrl`, and the closer of everything but the queue events. */
async function connectTo(
  redisUrl: string,
): Promise<{ conn: Connections; close: () => Promise<void> }> {
  const { database, prefix } = isolation();
  const conn = await connect({
    log: testLogger(),
    redisUrl,
    mongoUrl: serviceUrls().mongoUrl,
    database,
    queuePrefix: prefix,
    masterKey: randomBytes(32),
  });
  const close = track('api connections', async () => {
    await closeRedis(conn.eventsRedis);
    await conn.producers.close();
    await closeRedis(conn.redis);
    await conn.mongo.db.dropDatabase();
    await conn.mongo.close();
  });
  return { conn, close };
}

/** Which settles first: `closeIngestEvents(DEADLINE_MS)`, or a marker armed at the deadline. */
async function closeOrMarker(conn: Connections): Promise<'closed' | 'marker'> {
  let timer: NodeJS.Timeout | undefined;
  const marker = new Promise<'marker'>((resolve) => {
    timer = setTimeout(resolve, DEADLINE_MS, 'marker');
  });
  try {
    return await Promise.race([
      conn.closeIngestEvents(DEADLINE_MS).then(() => 'closed' as const),
      marker,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The status of the ioredis client the queue events run on (BullMQ's duplicate). */
async function eventsClientStatus(conn: Connections): Promise<string> {
  return (await conn.ingestEvents.client).status;
}

test('Redis refused from the start: the queue events close at once, not at the deadline', async () => {
  const { conn, close } = await connectTo(`redis://127.0.0.1:${await freePort()}`);
  try {
    const refused: Error[] = [];
    conn.eventsRedis.on('error', (err: Error) => refused.push(err));
    await eventually('a refused connection attempt', () => refused.length > 0);
    expect(await closeOrMarker(conn)).toBe('closed');
  } finally {
    await close();
  }
});

test('Redis stopped after the queue events were ready: they close at once', async () => {
  const { redisUrl } = serviceUrls();
  const { port } = new URL(redisUrl);
  const proxy = await startTcpProxy(Number(port));
  const { conn, close } = await connectTo(redisUrl.replace(`:${port}`, `:${proxy.port}`));
  try {
    await conn.ingestEvents.waitUntilReady();
    proxy.cutNow(STOPPED_MS);
    await eventually('the queue events to see Redis gone', async () =>
      (await eventsClientStatus(conn)) !== 'ready' ? true : undefined,
    );
    expect(await closeOrMarker(conn)).toBe('closed');
  } finally {
    await close();
    await proxy.close();
  }
});

test('Redis up: the queue events close gracefully, BullMQ running its close to its end', async () => {
  const { conn, close } = await connectTo(serviceUrls().redisUrl);
  try {
    await conn.ingestEvents.waitUntilReady();
    expect(await eventsClientStatus(conn)).toBe('ready');
    expect(await closeOrMarker(conn)).toBe('closed');
    // BullMQ's own close had run to its end when ours resolved (a dropped one is left pending).
    expect((conn.ingestEvents as unknown as { closed: boolean }).closed).toBe(true);
    await expect(conn.ingestEvents.closing).resolves.toBeUndefined();
  } finally {
    await close();
  }
});
