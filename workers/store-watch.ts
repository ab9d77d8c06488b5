/**
 * Reconnects the worker's MongoDB client when it stays wedged after the server restarts. Seen in
 * the fault test `mongo-restarts-exceptions` (issue 33): after a restart the worker's client kept
 * failing every server selection with the error of a connection closed minutes before
 * ("connection 6 to … closed"), so the 16 exception slots cycled through failed attempts and
 * nothing was stored for 7 minutes, while the API's client and any new client reached the same
 * server at once. Every `everyMs` the watch pings through the worker's client; when that fails
 * twice in a row while a new client pings the same server, the worker's client is closed and
 * connected again (the Db and collection handles the processors hold follow it). When the new
 * client fails too, the server is down: nothing to do but wait.
 */
import { MongoClient } from 'mongodb';
import { withDeadline } from '../shared/deadline';
import type { Logger } from '../shared/log';
import { repeat } from './every';

export type StoreState = 'healthy' | 'down' | 'wedged' | 'reconnected';

export interface StoreWatchOptions {
  readonly client: MongoClient;
  /** The server's URL, for the new client that tells "wedged" from "down". */
  readonly url: string;
  readonly log: Logger;
  readonly everyMs: number;
}

export interface StoreWatch {
  /** One look (the timer does the same); joins the look in flight, if any. */
  check(): Promise<StoreState>;
  /**
   * No more looks; waits for one in flight (a ping answers at once when the store is up) at most
   * STOP_WAIT_MS: a shutdown must not wait on a server that stopped answering. A reconnection
   * still under way then closes the client again when it ends.
   */
  stop(): Promise<void>;
}

const PING_MS = 5_000;
const STOP_WAIT_MS = 5_000;
const noop = (): void => undefined;

/** Whether a ping through `client` is answered within PING_MS (any socket timeout it has aside). */
async function pings(client: MongoClient): Promise<boolean> {
  try {
    await withDeadline({ ms: PING_MS, what: 'store watch: ping' }, () =>
      client.db('admin').command({ ping: 1 }),
    );
    return true;
  } catch {
    return false;
  }
}

/** Whether a new client reaches the server (closed again whatever happens). */
async function reachable(url: string): Promise<boolean> {
  const fresh = new MongoClient(url, {
    serverSelectionTimeoutMS: PING_MS,
    connectTimeoutMS: PING_MS,
    socketTimeoutMS: PING_MS,
    appName: 'apkrelay-store-watch',
  });
  try {
    await fresh.connect();
    return await pings(fresh);
  } catch {
    return false;
  } finally {
    await fresh.close().catch(() => undefined);
  }
}

export function startStoreWatch(options: StoreWatchOptions): StoreWatch {
  let wedgedLooks = 0;
  let stopped = false;
  const check = async (): Promise<StoreState> => {
    if (await pings(options.client)) {
      wedgedLooks = 0;
      return 'healthy';
    }
    if (!(await reachable(options.url))) {
      wedgedLooks = 0;
      return 'down';
    }
    // Once may be a client still catching up with a server that has just come back.
    if (++wedgedLooks < 2 || stopped) return 'wedged';
    wedgedLooks = 0;
    options.log.warn('the MongoDB client fails while the server answers; reconnecting it');
    await options.client.close();
    await options.client.connect();
    // Stopped meanwhile: the owner closes (or has closed) the client; it must not stay connected.
    if (stopped) await options.client.close();
    return 'reconnected';
  };
  // One look at a time, the timer's or a caller's.
  let running: Promise<StoreState> | undefined;
  const look = () =>
    (running ??= check().finally(() => {
      running = undefined;
    }));
  const looks = repeat(options.everyMs, look, (err) =>
    options.log.warn({ err: err.message }, 'store watch failed'),
  );
  return {
    check: look,
    async stop() {
      stopped = true;
      looks.stop();
      const inFlight = running?.then(noop, noop) ?? Promise.resolve();
      await withDeadline(
        { ms: STOP_WAIT_MS, what: 'store watch: look in flight' },
        () => inFlight,
      ).catch(() =>
        options.log.warn('store watch: a look still in flight at stop; not waited for'),
      );
    },
  };
}
