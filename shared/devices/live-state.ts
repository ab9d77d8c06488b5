/**
 * The fast-changing state of installations, kept in Redis rather than in their MongoDB documents:
 * when each was last seen (heartbeats, open streams) and what the push hub last offered or gave up
 * on it. These change for every device on every notice and every 30 s; where an update by `_id`
 * costs a scan of the collection (store.ts), writing them there made connecting a fleet take
 * minutes and kept the database busy for longer than a heartbeat.
 * Redis is already the store of record for acknowledged jobs (append-only file), so it holds these
 * too; the installation documents keep what devices report and the owner decides.
 *
 * Per account: the seat cursor, which plan seat a registration claims first (seats.ts).
 * Per app (account + package): a sorted set of installation ids scored by last-seen time (ms), a
 * hash of installation id → offer state, and a hash of installation id → card: a write-through
 * copy of what a stream connect or a heartbeat needs from the document (status, reported hashes
 * and metadata): a fleet connecting or beating must not read the documents (store.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from '../storage/redis';
import { ObjectId, type Filter } from 'mongodb';
import { redisKeys } from '../redis-keys';
import type { SeatCursor } from './seats';
import type { InstallationDoc, InstallationStatus, KeyValue } from './types';

export interface OfferState {
  /** The APK last offered by a `version` event and not yet applied. */
  readonly offeredApkId: string | null;
  /** APKs given up on this installation (a `giveup` event was sent); the last few. */
  readonly gaveUp: readonly string[];
}

export interface AppScope {
  readonly accountId: string;
  readonly package: string;
}

/** What device requests need of an installation, kept beside its document (write-through). */
export interface InstallationCard {
  readonly status: InstallationStatus;
  readonly installedMd5: string | null;
  readonly lastDownloadedMd5: string | null;
  readonly metadata: readonly KeyValue[];
  /**
   * Set by a registration only (cards.ts): the fingerprint of the fields it wrote
   * (installations.ts `registrationFingerprint`). Any other writer's card has none.
   */
  readonly fingerprint?: string;
}

export function cardOf(doc: InstallationDoc): InstallationCard {
  return {
    status: doc.status,
    installedMd5: doc.installedMd5,
    lastDownloadedMd5: doc.lastDownloadedMd5,
    metadata: doc.metadata,
  };
}

function parseCard(raw: string | null): InstallationCard | null {
  if (!raw) return null;
  try {
    const c = JSON.parse(raw) as Partial<InstallationCard>;
    if (c.status !== 'enabled' && c.status !== 'disabled') return null;
    return {
      status: c.status,
      installedMd5: typeof c.installedMd5 === 'string' ? c.installedMd5 : null,
      lastDownloadedMd5: typeof c.lastDownloadedMd5 === 'string' ? c.lastDownloadedMd5 : null,
      metadata: Array.isArray(c.metadata) ? c.metadata : [],
      ...(typeof c.fingerprint === 'string' ? { fingerprint: c.fingerprint } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * What an installation's field in the cards hash holds: its card, or a registration's placeholder
 * (`raw` is the placeholder's exact text, for compare-and-set) valid until `untilMs` (wall clock).
 */
export type CardEntry =
  | { readonly card: InstallationCard }
  | { readonly card: null; readonly registeringUntilMs: number; readonly raw: string };

function parseEntry(raw: string | null): CardEntry | null {
  const card = parseCard(raw);
  if (card) return { card };
  if (!raw) return null;
  try {
    const p = JSON.parse(raw) as { registering?: unknown };
    if (typeof p.registering === 'number') {
      return { card: null, registeringUntilMs: p.registering, raw };
    }
  } catch {
    /* unreadable: as if absent */
  }
  return null;
}

/** Replaces field ARGV[1] with ARGV[3] (or deletes it when ARGV[3] is '') if it holds ARGV[2]. */
const REPLACE_IF = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return 1`;

/** Sets field ARGV[1] to ARGV[2]; returns what it held (nil when nothing). */
const SWAP = `
local before = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return before`;

/**
 * The seat cursor's next slot (KEYS[1], a counter): -1 when there is none and ARGV[1] is '',
 * else the counter (started at ARGV[1] when absent), counted up by one.
 */
const NEXT_SEAT = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[1] == '' then return -1 end
  redis.call('SET', KEYS[1], ARGV[1])
end
return redis.call('INCR', KEYS[1]) - 1`;

const NO_OFFER: OfferState = { offeredApkId: null, gaveUp: [] };
/** Arguments per Redis command when writing thousands of entries. */
const CHUNK = 1_000;

function parseOffer(raw: string | null): OfferState {
  if (!raw) return NO_OFFER;
  try {
    const v = JSON.parse(raw) as { o?: unknown; g?: unknown };
    return {
      offeredApkId: typeof v.o === 'string' ? v.o : null,
      gaveUp: Array.isArray(v.g) ? v.g.filter((x): x is string => typeof x === 'string') : [],
    };
  } catch {
    return NO_OFFER;
  }
}

/** A registration's placeholder in a card's place (see cards.ts), valid for `forMs`. */
function placeholderText(forMs: number): string {
  return JSON.stringify({ registering: Date.now() + forMs, n: randomBytes(6).toString('hex') });
}

/** The accounts' seat cursors (devices/seats.ts): a counter per account. */
function seatCursor(redis: Redis, prefix: string): SeatCursor {
  const keys = redisKeys(prefix);
  return {
    async next(accountId, start) {
      const key = keys.seatCursor(accountId);
      const slot = Number(await redis.eval(NEXT_SEAT, 1, key, ''));
      if (slot >= 0) return slot;
      return Number(await redis.eval(NEXT_SEAT, 1, key, String(await start())));
    },
    async forget(accountId) {
      await redis.del(keys.seatCursor(accountId));
    },
  };
}

export function liveState(redis: Redis, prefix: string) {
  const keys = redisKeys(prefix);
  const seenKey = (app: AppScope) => keys.installationsSeen(app.accountId, app.package);
  const offersKey = (app: AppScope) => keys.installationOffers(app.accountId, app.package);
  const cardsKey = (app: AppScope) => keys.installationCards(app.accountId, app.package);
  return {
    /** Which plan seat a claim tries first (devices/seats.ts). */
    seatCursor: seatCursor(redis, prefix),

    /** Marks installations (hex ids) as seen at `at`; never moves a later sighting back. */
    async seen(app: AppScope, ids: readonly string[], at: Date): Promise<void> {
      const score = at.getTime();
      for (let i = 0; i < ids.length; i += CHUNK) {
        const args = ids.slice(i, i + CHUNK).flatMap((id) => [score, id]);
        await redis.zadd(seenKey(app), 'GT', ...args);
      }
    },

    /** Last-seen times of the given installations (null where none is recorded). */
    async lastSeen(app: AppScope, ids: readonly string[]): Promise<Array<Date | null>> {
      if (ids.length === 0) return [];
      const scores = await redis.zmscore(seenKey(app), ...ids);
      return scores.map((s) => (s === null ? null : new Date(Number(s))));
    },

    /** Installations (hex ids) seen at or after `since`. */
    seenSince(app: AppScope, since: Date): Promise<string[]> {
      return redis.zrangebyscore(seenKey(app), since.getTime(), '+inf');
    },

    async offer(app: AppScope, id: string): Promise<OfferState> {
      return parseOffer(await redis.hget(offersKey(app), id));
    },

    async offers(app: AppScope, ids: readonly string[]): Promise<OfferState[]> {
      if (ids.length === 0) return [];
      return (await redis.hmget(offersKey(app), ...ids)).map(parseOffer);
    },

    /** The cards of these installations (null where there is none, or a placeholder). */
    async cards(app: AppScope, ids: readonly string[]): Promise<Array<InstallationCard | null>> {
      const out: Array<InstallationCard | null> = [];
      for (let i = 0; i < ids.length; i += CHUNK) {
        const raw = await redis.hmget(cardsKey(app), ...ids.slice(i, i + CHUNK));
        out.push(...raw.map(parseCard));
      }
      return out;
    },

    async card(app: AppScope, id: string): Promise<InstallationCard | null> {
      return parseCard(await redis.hget(cardsKey(app), id));
    },

    /** The card, or a registration's placeholder, or null. */
    async cardEntry(app: AppScope, id: string): Promise<CardEntry | null> {
      return parseEntry(await redis.hget(cardsKey(app), id));
    },

    /**
     * A registration begins: its placeholder replaces the card for at most `forMs`, so no reader
     * backfills a card from the half-written document meanwhile. Returns the placeholder's text,
     * and whether a card was there (the installation's document existed when it was written).
     */
    async beginRegistration(
      app: AppScope,
      id: string,
      forMs: number,
    ): Promise<{ placeholder: string; hadCard: boolean }> {
      const raw = placeholderText(forMs);
      const before = (await redis.eval(SWAP, 1, cardsKey(app), id, raw)) as string | null;
      return { placeholder: raw, hadCard: parseCard(before) !== null };
    },

    /**
     * Replaces `placeholder` with `card` (null: removes it), unless a status change replaced the
     * placeholder meanwhile (its card is newer). True when replaced.
     */
    async replacePlaceholder(
      app: AppScope,
      id: string,
      placeholder: string,
      card: InstallationCard | null,
    ): Promise<boolean> {
      const value = card ? JSON.stringify(card) : '';
      return (await redis.eval(REPLACE_IF, 1, cardsKey(app), id, placeholder, value)) === 1;
    },

    /** After the document was written: the card says what it says. */
    async setCard(app: AppScope, id: string, card: InstallationCard): Promise<void> {
      await redis.hset(cardsKey(app), id, JSON.stringify(card));
    },

    /**
     * A card read from the document by a request that found none: kept only if no writer set one
     * meanwhile (a writer's card is newer than this read).
     */
    async backfillCard(app: AppScope, id: string, card: InstallationCard): Promise<void> {
      await redis.hsetnx(cardsKey(app), id, JSON.stringify(card));
    },

    /** Before a status change: until the new card is written, requests read the document. */
    async dropCard(app: AppScope, id: string): Promise<void> {
      await redis.hdel(cardsKey(app), id);
    },

    async setOffers(app: AppScope, entries: ReadonlyArray<[string, OfferState]>): Promise<void> {
      for (let i = 0; i < entries.length; i += CHUNK) {
        const args = entries
          .slice(i, i + CHUNK)
          .flatMap(([id, s]) => [id, JSON.stringify({ o: s.offeredApkId, g: s.gaveUp })]);
        await redis.hset(offersKey(app), ...args);
      }
    },
  };
}
export type LiveState = ReturnType<typeof liveState>;

/**
 * MongoDB filter of an app's installations seen since `since` (online) or not (offline): a
 * document's own `lastSeenAt`, or a later sighting recorded in Redis.
 */
export async function seenFilter(
  live: LiveState,
  app: AppScope,
  since: Date,
  online: boolean,
): Promise<Filter<InstallationDoc>> {
  const ids = (await live.seenSince(app, since)).map((hex) => ObjectId.createFromHexString(hex));
  return online
    ? { $or: [{ lastSeenAt: { $gte: since } }, { _id: { $in: ids } }] }
    : { lastSeenAt: { $lt: since }, _id: { $nin: ids } };
}

/** The later of a document's `lastSeenAt` and its sighting in Redis. */
export function lastSeenAt(doc: Pick<InstallationDoc, 'lastSeenAt'>, seen: Date | null): Date {
  return seen && seen > doc.lastSeenAt ? seen : doc.lastSeenAt;
}
