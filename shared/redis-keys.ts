/** Every Redis key apkrelay writes outside BullMQ, built in one place under the queue prefix. */
export function redisKeys(prefix: string) {
  return {
    /** Liveness of a worker process: `SET … PX` refreshed by the process while it runs. */
    workerHeartbeat: (workerId: string) => `${prefix}:workers:${workerId}`,
    workerHeartbeatPattern: () => `${prefix}:workers:*`,
  } as const;
}
export type RedisKeys = ReturnType<typeof redisKeys>;
