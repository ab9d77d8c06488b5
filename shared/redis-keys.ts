/** Every Redis key apkrelay writes outside BullMQ, built in one place under the queue prefix. */
export function redisKeys(prefix: string) {
  return {
    /** Per-app stream of version notices (devices resume from it with Last-Event-ID). */
    noticeStream: (appId: string) => `${prefix}:notices:${appId}`,
    /** Pub/sub channel every API process listens on to relay notices to its own streams. */
    noticeChannel: () => `${prefix}:notices`,
    /** Per-app sliding window of admitted exception reports (sorted set, score = ms). */
    exceptionWindow: (appId: string) => `${prefix}:exceptions:window:${appId}`,
  } as const;
}
export type RedisKeys = ReturnType<typeof redisKeys>;
