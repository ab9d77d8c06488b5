/**
 * Acknowledged means replicated, on a Redis Cluster. A cluster master answers a write before its
 * replica has it; when that master dies, its replica is promoted without the write. So before
 * apkrelay acknowledges something held only in Redis (an enqueued upload or exception report, an
 * admission to the exception window), it asks the master that took the write to confirm one
 * replica has everything this connection wrote to it (WAIT 1). One Redis: nothing to wait for,
 * its append-only file is the copy (it survives a crash of the process).
 */
import { Command } from 'ioredis';
import type { Redis } from './redis';

/** Longest a write waits for its replica (a master without a live replica waits this long). */
export const REPLICA_WAIT_MS = 1_000;

/**
 * On a cluster: waits until one replica of the master holding `key`'s slot has this
 * connection's writes to it, or REPLICA_WAIT_MS; resolves to how many replicas confirmed (0: the
 * master has no live replica; the write is as durable as that master's append-only file). On one
 * Redis: resolves to null at once.
 */
export async function confirmReplicated(redis: Redis, key: string): Promise<number | null> {
  if (!redis.isCluster) return null;
  const slot = new Command('exists', [key]).getSlot();
  const wait = new Command('wait', ['1', String(REPLICA_WAIT_MS)], { replyEncoding: 'utf8' });
  // Routed by slot, so it reaches the master (and connection) that took the write.
  void redis.sendCommand(wait, undefined, { slot });
  return Number(await wait.promise);
}
