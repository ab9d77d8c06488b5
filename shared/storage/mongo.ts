/**
 * The MongoDB connection. Code speaks only the official driver's API, restricted to what every
 * MongoDB-protocol server apkrelay runs on supports (the embedded one included, ops/services):
 * single-document atomic updates, unique indexes, GridFS; no transactions, change streams,
 * $lookup, TTL, sparse or partial indexes.
 */
import { MongoClient, type Db } from 'mongodb';

export interface Mongo {
  readonly client: MongoClient;
  readonly db: Db;
  close(): Promise<void>;
}

export const DEFAULT_DATABASE = 'apkrelay';

/**
 * The driver's own deadlines for one round trip and for a free connection (the worker process
 * sets them: a reply that never comes over a connection to a restarted server then fails that
 * connection instead of holding a job; the driver's `timeoutMS` is a no-op in mongodb 7).
 */
export interface MongoDeadlines {
  readonly socketTimeoutMS: number;
  readonly waitQueueTimeoutMS: number;
}

export async function connectMongo(
  url: string,
  database?: string,
  deadlines?: MongoDeadlines,
): Promise<Mongo> {
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    appName: 'apkrelay',
    ...deadlines,
  });
  await client.connect();
  const dbName = database ?? (new URL(url).pathname.replace(/^\//, '') || DEFAULT_DATABASE);
  let closing: Promise<void> | undefined;
  return {
    client,
    db: client.db(dbName),
    close: () => (closing ??= client.close()),
  };
}

/** True when the server answers a ping within the driver's selection timeout. */
export async function mongoReachable(mongo: Mongo): Promise<boolean> {
  try {
    await mongo.db.command({ ping: 1 });
    return true;
  } catch {
    return false;
  }
}
