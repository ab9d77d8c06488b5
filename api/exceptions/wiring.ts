/**
 * The exception intake's dependencies, built once when the API process starts (api/main.ts) and
 * shared by the PushLink form and the JSON route: one sliding window, one set of caches, one
 * installation lookup per process.
 */
import type { Db } from 'mongodb';
import type { AccountsService } from '../../shared/accounts/service';
import type { LiveState } from '../../shared/devices/store';
import { redisSlidingWindow } from '../../shared/exceptions/sliding-window';
import { crashCounter } from '../../shared/rollouts/crash-counter';
import type { Logger } from '../../shared/log';
import { exceptionIngestQueue } from '../../shared/queues/exception-ingest';
import type { Producers } from '../../shared/queues/producers';
import { redisKeys } from '../../shared/redis-keys';
import type { Redis } from '../../shared/storage/redis';
import { cardInstallationLookup } from '../../shared/devices/store';
import { intakeCaches, type IntakeDeps } from './intake';

export interface IntakeParts {
  readonly db: Db;
  readonly accounts: AccountsService;
  readonly redis: Redis;
  readonly producers: Producers;
  readonly live: LiveState;
  readonly now: () => Date;
  readonly log: Logger;
}

export function exceptionIntake(parts: IntakeParts): IntakeDeps {
  const queue = parts.producers.get(exceptionIngestQueue.name);
  // Window keys live under the same prefix as the queues (QUEUE_PREFIX).
  const prefix = queue.opts.prefix ?? 'bull';
  return {
    db: parts.db,
    accounts: parts.accounts,
    queue,
    window: redisSlidingWindow(parts.redis),
    windowKey: redisKeys(prefix).exceptionWindow,
    crashes: crashCounter(parts.redis, prefix),
    installations: cardInstallationLookup(parts),
    caches: intakeCaches(),
    now: parts.now,
    log: parts.log,
  };
}
