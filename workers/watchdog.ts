/**
 * The stuck-worker watchdog. Every job runs under its queue's budget (runtime.ts), so a job still
 * active past it means a slot that stopped working: the failure path itself hangs, or a worker
 * died and its lock has not expired yet. Every `everyMs` it reads each queue's active jobs from
 * Redis (every worker's, not only this process's) and, once per job and process, logs it as
 * overdue and adds a line to the job's own log, which the queue board shows. `/metrics` counts
 * the same jobs (`apkrelay_jobs_overdue`, api/metrics/api-metrics.ts) with the same rule.
 */
import type { Logger } from '../shared/log';
import { QUEUES } from '../shared/queues';
import { overdueJobs } from '../shared/queues/budget';
import type { QueueDefinition } from '../shared/queues/definition';
import { listenedQueue } from '../shared/queues/listened-connection';
import type { Redis } from '../shared/storage/redis';
import { repeat } from './every';

export interface WatchdogOptions {
  readonly connection: Redis;
  /** The BullMQ prefix (bullPrefix). */
  readonly prefix: string;
  readonly log: Logger;
  readonly everyMs: number;
  /** The job budget of a queue; default: the queue's own. */
  readonly budgetOf?: (definition: QueueDefinition<unknown, unknown>) => number;
  readonly now?: () => number;
}

export interface Watchdog {
  /** Runs one look now (the timer does the same); resolves with the overdue job ids logged. */
  check(): Promise<string[]>;
  stop(): Promise<void>;
}

export function startWatchdog(options: WatchdogOptions): Watchdog {
  const now = options.now ?? Date.now;
  const budgetOf = options.budgetOf ?? ((q) => q.budgetMs);
  const onError = (err: Error) => options.log.warn({ err: err.message }, 'watchdog queue error');
  const at = { connection: options.connection, prefix: options.prefix };
  const queues = QUEUES.map((q) => [q, listenedQueue(q.name, at, onError)] as const);
  const reported = new Set<string>();
  const check = async (): Promise<string[]> => {
    const logged: string[] = [];
    const seen = new Set<string>();
    for (const [definition, queue] of queues) {
      const active = await queue.getActive();
      const budgetMs = budgetOf(definition);
      for (const o of overdueJobs(active, budgetMs, now())) {
        const key = `${definition.name}/${o.id}`;
        seen.add(key);
        if (reported.has(key)) continue;
        reported.add(key);
        logged.push(key);
        const facts = { queue: definition.name, jobId: o.id, activeMs: o.activeMs };
        options.log.error({ ...facts, budgetMs }, 'job overdue');
        const line = `overdue: active ${Math.round(o.activeMs / 1000)} s, budget ${budgetMs / 1000} s (stuck-worker watchdog)`;
        await queue.addJobLog(o.id, line).catch(() => undefined);
      }
    }
    // A job no longer overdue (finished, or retried) is forgotten; a later stall is logged again.
    for (const key of reported) if (!seen.has(key)) reported.delete(key);
    return logged;
  };
  const looks = repeat(options.everyMs, check, (err) =>
    options.log.warn({ err: err.message }, 'watchdog could not read the active jobs'),
  );
  return {
    check,
    async stop() {
      looks.stop();
      // Not waiting for a look in flight: one waiting for an absent Redis would hold the
      // shutdown; it fails with the connection and is logged.
      await Promise.all(queues.map(([, q]) => q.close()));
    },
  };
}
