/**
 * Every Redis key apkrelay writes outside BullMQ, built in one place under the queue prefix.
 * On a Redis Cluster a command or script may only name keys of one slot: keys used together
 * carry the same hash tag (`{...}`), and every other command here names a single key.
 */
export function redisKeys(prefix: string) {
  return {
    /** Per-app stream of version notices (devices resume from it with Last-Event-ID). */
    noticeStream: (appId: string) => `${prefix}:notices:${appId}`,
    /** Pub/sub channel every API process listens on to relay notices to its own streams. */
    noticeChannel: () => `${prefix}:notices`,
    /** Per app: installation ids scored by when each was last seen (ms); see devices/live-state. */
    installationsSeen: (accountId: string, pkg: string) =>
      `${prefix}:installations:seen:${accountId}:${pkg}`,
    /** Per app: installation id → status, reported hashes and metadata (JSON; write-through). */
    installationCards: (accountId: string, pkg: string) =>
      `${prefix}:installations:cards:${accountId}:${pkg}`,
    /** Per app: installation id → what the push hub last offered or gave up on it (JSON). */
    installationOffers: (accountId: string, pkg: string) =>
      `${prefix}:installations:offers:${accountId}:${pkg}`,
    /**
     * Per account: the next plan seat slot a claim tries (devices/seats.ts); a hint, the seats'
     * unique ids decide.
     */
    seatCursor: (accountId: string) => `${prefix}:seats:next:${accountId}`,
    /** Per-app sliding window of admitted exception reports (sorted set, score = ms). */
    exceptionWindow: (appId: string) => `${prefix}:exceptions:window:${appId}`,
    /**
     * Per app: APK id → unhandled exception reports counted for the rollout health gate, stored or
     * refused by the 24 h limit (shared/rollouts/crash-counter.ts).
     */
    crashCounts: (appId: string) => `${prefix}:rollouts:crashes:${appId}`,
    /** JSON of the last successful backup ({at, path, bytes, sha256}), for the backup-age metric. */
    lastBackup: () => `${prefix}:backup:last`,
    /** Hash per queue: job-duration histogram buckets, `sum` and `count` (written by workers). */
    jobDurations: (queue: string) => `${prefix}:metrics:job-seconds:${queue}`,
    /** Lock serialising writes to one exception group (why: workers/exceptions/groups.ts). */
    exceptionGroupLock: (groupId: string) => `${prefix}:exceptions:group-lock:${groupId}`,
    /** Marker of an exception report stored by the worker (expires after the window). */
    exceptionStored: (reportId: string) => `${prefix}:exceptions:stored:${reportId}`,
    /** Set once a group's `exception.group.new` webhook event was emitted (docs/webhooks.md). */
    webhookGroupSeen: (groupId: string) => `${prefix}:webhooks:group-seen:${groupId}`,
    /**
     * The ids of an app's reports admitted in one UTC hour (hours since the epoch), for spikes: a
     * set, so a report whose job runs twice counts once.
     */
    exceptionHour: (appId: string, hour: number) =>
      `${prefix}:webhooks:report-ids:${appId}:${hour}`,
    /** Per account: webhook delivery attempts under way (sorted set, score = lease end, ms). */
    webhookSlots: (accountId: string) => `${prefix}:webhooks:slots:${accountId}`,
    /** Per account: redeliveries by hand in the last minute (sliding window, attempt-windows). */
    webhookRedeliveries: (accountId: string) => `${prefix}:webhooks:redeliveries:${accountId}`,
    /** Set once an app's `exception.spike` event of that hour was emitted. */
    spikeFired: (appId: string, hour: number) => `${prefix}:webhooks:spike:${appId}:${hour}`,
    /**
     * Sliding window of failed API-key authentications of one client address or presented key.
     * One Lua call counts an address's and a key's window together: one hash tag for all.
     */
    authFailures: (kind: 'address' | 'key', bucket: string) =>
      `{${prefix}:auth-failures}:${kind}:${bucket}`,
    /**
     * Sliding window of web login attempts of one client address bucket, or of one email (a
     * digest, never the address itself) from one client address bucket. Counted together (one
     * Lua call): one hash tag for all.
     */
    loginAttempts: (kind: 'address' | 'email', bucket: string) =>
      `{${prefix}:logins}:${kind}:${bucket}`,
    /**
     * Sliding window of new installations registered with one presented key (a digest) or of one
     * app (devices/registration-throttle.ts). Counted together: one hash tag for all.
     */
    newRegistrations: (kind: 'key' | 'app', bucket: string) =>
      `{${prefix}:new-registrations}:${kind}:${bucket}`,
    /**
     * Per app: `installation.over_plan` registrations not yet told, and the marker of the window
     * whose event went out (webhooks/over-plan.ts). Used together: one hash tag per app.
     */
    overPlanCount: (accountId: string, pkg: string) =>
      `{${prefix}:over-plan:${accountId}:${pkg}}:count`,
    overPlanWindow: (accountId: string, pkg: string, window: number) =>
      `{${prefix}:over-plan:${accountId}:${pkg}}:window:${window}`,
    /**
     * Second-factor code attempts at login (totp-throttle.ts): a sliding window per user (its
     * totp-factors key), a counter per pending login (the SHA-256 of its token).
     */
    totpCodes: (kind: 'user' | 'pending', id: string) => `${prefix}:totp-codes:${kind}:${id}`,
    /** Sliding window of sign-up attempts of one client address bucket. */
    signupAttempts: (bucket: string) => `${prefix}:signups:address:${bucket}`,
  } as const;
}
export type RedisKeys = ReturnType<typeof redisKeys>;
