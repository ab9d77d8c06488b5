/**
 * The two Redis connection profiles. Producers (the API) fail fast so a request gets a 503 while
 * Redis is down instead of hanging; workers wait for Redis to come back (BullMQ requires
 * `maxRetriesPerRequest: null` for blocking connections). Either names one Redis or, when the URL
 * has a cluster scheme (redis-url.ts), a Redis Cluster: then an ioredis Cluster with the same
 * profile, and BullMQ's prefix in a hash tag (`bullPrefix`).
 */
import {
  Cluster,
  type ClusterNode,
  type ClusterOptions,
  type Command,
  Redis as SingleRedis,
  type RedisOptions,
  ReplyError,
} from 'ioredis';
import { isClusterUrl, parseClusterUrl } from './redis-url';

/** A connection to one Redis or to a Redis Cluster: the commands apkrelay uses work on both. */
export type Redis = SingleRedis | Cluster;

/**
 * A command Redis never answered: the connection was closed, not writable, or out of retries.
 * It keeps ioredis's message (libraries such as BullMQ read it) and carries the original as cause.
 * `sent` tells whether the command may have reached Redis: false only when it was never written
 * to a socket (refused before sending), so Redis surely did not run it; true when it was written
 * and its reply was lost, so it may have run.
 */
export class RedisUnavailableError extends Error {
  readonly code = 'REDIS_UNAVAILABLE';

  constructor(
    cause: Error,
    readonly sent = true,
  ) {
    super(cause.message, { cause });
    this.name = 'RedisUnavailableError';
  }

  /** Refused before any command was written (the connection is not ready). */
  static unsent(message: string): RedisUnavailableError {
    return new RedisUnavailableError(new Error(message), false);
  }
}

/**
 * True only when `err` (or an error in its `cause` chain) proves the failed Redis command never
 * left this process, so whatever it would have written does not exist. Every other failure (a
 * deadline, a reply lost after the write, a cluster retry that ran out) is ambiguous: the write
 * may have landed, and a caller must not undo what depends on it.
 */
export function surelyNotSent(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth += 1) {
    if (e instanceof RedisUnavailableError) return !e.sent;
  }
  return false;
}

const CLASSIFIED = Symbol('apkrelay.outageClassified');
const WRITTEN = Symbol('apkrelay.written');

/**
 * ioredis rejects a command with a ReplyError when Redis answered, and with a plain Error when it
 * never did. This turns the second kind into RedisUnavailableError, so callers tell an outage by
 * its class, not by ioredis's message text. Whether the command was ever written is recorded
 * from `toWritable`, which ioredis calls only when it writes a command to a socket (every
 * attempt, cluster retries included). On a cluster the wrap is made before the Cluster's own,
 * so redirections and failover retries are handled first and only the final error is seen.
 */
function classifyOutage(command: Command): void {
  const marked = command as Command & { [CLASSIFIED]?: true; [WRITTEN]?: true };
  if (marked[CLASSIFIED]) return;
  marked[CLASSIFIED] = true;
  const toWritable = command.toWritable.bind(command);
  command.toWritable = (socket) => {
    marked[WRITTEN] = true;
    return toWritable(socket);
  };
  const reject = command.reject;
  command.reject = (err) =>
    reject(
      err instanceof ReplyError || err instanceof RedisUnavailableError
        ? err
        : new RedisUnavailableError(err, marked[WRITTEN] === true),
    );
}

class OutageClassifyingRedis extends SingleRedis {
  override sendCommand(command: Command, stream?: Parameters<SingleRedis['sendCommand']>[1]) {
    classifyOutage(command);
    return super.sendCommand(command, stream);
  }
}

class OutageClassifyingCluster extends Cluster {
  override sendCommand(...args: Parameters<Cluster['sendCommand']>): unknown {
    classifyOutage(args[0]);
    return super.sendCommand(...args);
  }
}

/**
 * How long ioredis's disconnect() waits for a socket it ended to close before destroying it:
 * 0, destroyed at once. Its default (2 s) is a ref'd timer cleared only by the socket's `close`,
 * and a connection closed between reconnect attempts has a socket that closed already (ioredis
 * issue 1247): the timer then held the process 2 s after shutdown while Redis was down (issue 33,
 * jest workers that "failed to exit gracefully"). A disconnect drops pending replies anyway;
 * closeRedis quits gracefully first when the connection is up.
 */
const DISCONNECT_TIMEOUT_MS = 0;

/** The nodes and node options of a cluster URL, with the profile's per-node options. */
function clusterOf(url: string, nodeOptions: RedisOptions): [ClusterNode[], ClusterOptions] {
  const target = parseClusterUrl(url);
  return [
    target.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      redisOptions: {
        disconnectTimeout: DISCONNECT_TIMEOUT_MS,
        ...nodeOptions,
        ...(target.username ? { username: target.username } : {}),
        ...(target.password ? { password: target.password } : {}),
        ...(target.tls ? { tls: {} } : {}),
      },
    },
  ];
}

/**
 * BullMQ's key prefix on `connection`. On a cluster it is a hash tag (`{apkrelay}`): BullMQ's
 * scripts touch several keys of a queue at once, and keys in one script must share a slot.
 * The tag puts every queue in one slot (one master); apkrelay's other keys (redis-keys.ts) spread.
 */
export function bullPrefix(connection: Redis, prefix: string): string {
  return connection.isCluster ? `{${prefix}}` : prefix;
}

export function createProducerRedis(url: string, name = 'apkrelay:producer'): Redis {
  if (isClusterUrl(url)) {
    const [nodes, options] = clusterOf(url, {
      connectionName: name,
      maxRetriesPerRequest: 1,
      connectTimeout: 5_000,
    });
    return new OutageClassifyingCluster(nodes, {
      ...options,
      enableOfflineQueue: false,
      clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
  }
  return new OutageClassifyingRedis(url, {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  } satisfies RedisOptions);
}

/**
 * `commandTimeoutMs`: each command fails after it (ioredis `commandTimeout`) rather than wait for
 * a Redis that went away; only for connections that issue no blocking commands (the processors'
 * own, never a BullMQ Worker's).
 */
export function createWorkerRedis(
  url: string,
  name = 'apkrelay:worker',
  commandTimeoutMs?: number,
): Redis {
  const timeout = commandTimeoutMs === undefined ? {} : { commandTimeout: commandTimeoutMs };
  if (isClusterUrl(url)) {
    const [nodes, options] = clusterOf(url, {
      connectionName: name,
      maxRetriesPerRequest: null,
      ...timeout,
    });
    return new Cluster(nodes, {
      ...options,
      enableReadyCheck: true,
      clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
      // While a master's replica is being promoted its slots answer CLUSTERDOWN or point at the
      // dead node: retry for about as long as a failover takes rather than fail the command.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      maxRedirections: 64,
    });
  }
  return new SingleRedis(url, {
    connectionName: name,
    maxRetriesPerRequest: null,
    ...timeout,
    enableReadyCheck: true,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  } satisfies RedisOptions);
}

/** Resolves once the connection is ready (used at start-up; producers never wait per request). */
export async function redisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}

/** ioredis's own steps that end a connection (its close handler's), private in its typings. */
interface Ending {
  setStatus(status: 'end'): void;
  flushQueue(error: Error): void;
}

/**
 * Ends `redis` at once, whatever its state. A connection disconnected between reconnect attempts
 * (Redis down) never emits 'end' (ioredis issue 1247), so whoever waits for its end (BullMQ's
 * close of a Worker) waits forever, and commands queued on it stay pending: it is then ended the
 * way ioredis's close handler ends one, status 'end', queued commands rejected, 'end' emitted.
 */
export function endRedis(redis: Redis): void {
  if (redis.status === 'end') return;
  const betweenAttempts = redis.status === 'reconnecting';
  redis.disconnect();
  if (betweenAttempts && redis instanceof SingleRedis && (redis.status as string) !== 'end') {
    const ending = redis as unknown as Ending;
    ending.setStatus('end');
    ending.flushQueue(new Error('Connection is closed.'));
  }
}

/**
 * Closes gracefully when connected (pending replies arrive first), at once otherwise: QUIT on a
 * connection that is not up would wait for Redis forever.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.quit(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 2_000);
      }),
    ]);
  } catch {
    // fall through to disconnect
  } finally {
    clearTimeout(timer);
    if ((redis.status as string) !== 'end') redis.disconnect();
  }
}
