/**
 * The store watch (workers/store-watch.ts) on the real MongoDB-protocol server: a client whose
 * view of the server is wedged (here its topology closed under it; after a restart it was a
 * server selection failing with a long-closed connection's error) is reconnected on the second
 * look, and the handles taken before work again; a server nobody reaches is left alone; a server
 * that stops answering neither holds a look past its deadline nor the watch's stop (a CI run's
 * workers never closed, their store watch waiting on a look in flight).
 */
import { MongoClient } from 'mongodb';
import { freePort } from '../../../ops/services/child';
import { createLogger } from '../../../shared/log';
import { connectMongo, type Mongo } from '../../../shared/storage/mongo';
import { startStoreWatch, type StoreWatch } from '../../../workers/store-watch';
import { isolation, serviceUrls } from '../../helpers/services';
import { startTcpProxy } from '../../helpers/tcp-proxy';

const log = createLogger('silent');
let mongo: Mongo;

beforeAll(async () => {
  mongo = await connectMongo(serviceUrls().mongoUrl, isolation().database);
});
afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

/** Breaks the client's view of the server without touching the server. */
async function wedge(client: MongoClient): Promise<void> {
  await (client as unknown as { topology: { close(): Promise<void> } }).topology.close();
}

/** A watch over `client` (default: the test's) for the duration of `use`. */
async function withWatch(
  use: (watch: StoreWatch) => Promise<void>,
  client = mongo.client,
  url = serviceUrls().mongoUrl,
): Promise<void> {
  const watch = startStoreWatch({ client, url, log, everyMs: 3_600_000 });
  try {
    await use(watch);
  } finally {
    await watch.stop();
  }
}

test('a healthy client is left alone', async () => {
  await withWatch(async (watch) => expect(await watch.check()).toBe('healthy'));
});

test('a wedged client is reconnected on the second look, and handles taken before work again', async () => {
  const reports = mongo.db.collection<{ _id: string }>('reports');
  await reports.insertOne({ _id: 'before' });
  await withWatch(async (watch) => {
    await wedge(mongo.client);
    await expect(reports.findOne({ _id: 'before' })).rejects.toThrow();
    expect(await watch.check()).toBe('wedged');
    expect(await watch.check()).toBe('reconnected');
    expect(await reports.findOne({ _id: 'before' })).toEqual({ _id: 'before' });
    expect(await watch.check()).toBe('healthy');
  });
});

test('when no client reaches the server, the server is down: the client is not touched', async () => {
  const dead = `mongodb://127.0.0.1:${await freePort()}`;
  const client = new MongoClient(dead, { serverSelectionTimeoutMS: 500 });
  try {
    await withWatch(
      async (watch) => {
        expect(await watch.check()).toBe('down');
        expect(await watch.check()).toBe('down');
      },
      client,
      dead,
    );
  } finally {
    await client.close();
  }
});

test('a server that stops answering: the look ends as "down" and stop does not wait on a look', async () => {
  const proxy = await startTcpProxy(Number(new URL(serviceUrls().mongoUrl).port));
  const url = `mongodb://127.0.0.1:${proxy.port}`;
  // No socket timeout: only the watch's own deadlines can end its waits.
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2_000 });
  try {
    await client.db('admin').command({ ping: 1 });
    // From now on nothing reaches the server: connected sockets and new ones wait forever.
    proxy.delay(3_600_000);
    await withWatch(async (watch) => expect(await watch.check()).toBe('down'), client, url);
    const watch = startStoreWatch({ client, url, log, everyMs: 3_600_000 });
    const look = watch.check();
    // The look takes two deadlines (the ping's, then a new client's); stop waits for one at most.
    const first = await Promise.race([watch.stop().then(() => 'stop'), look.then(() => 'look')]);
    expect(first).toBe('stop');
    expect(await look).toBe('down');
  } finally {
    await proxy.close();
    await client.close();
  }
});
