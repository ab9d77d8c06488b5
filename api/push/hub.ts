/**
 * The push hub of one API process: its own open device streams, grouped by app, and the relay of
 * version notices that workers publish through Redis. No device list lives only here: what each
 * installation runs is in MongoDB, what it was offered or gave up and when it was last seen is in
 * Redis (devices/live-state.ts), so any process can serve any device.
 * A device connecting here makes other processes drop their stream of it (a "kick" on the same
 * channel), so one process at a time speaks for an installation and a give-up is sent once.
 */
import { randomUUID } from 'node:crypto';
import { ObjectId, type Db } from 'mongodb';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import { targetApk } from '../../shared/rollouts/targets';
import { recordOffers } from '../../shared/funnel/marks';
import { latestNoticeId } from '../../shared/notices/append-notice';
import type { AppScope, InstallationCard, LiveState, OfferState } from '../../shared/devices/store';
import type { PushKeys } from '../../shared/devices/push-signing';
import type { PushChannelKind } from '../../shared/devices/registration-input';
import type { Logger } from '../../shared/log';
import { redisKeys } from '../../shared/redis-keys';
import { closeRedis, createWorkerRedis, type Redis } from '../../shared/storage/redis';
import { TtlCache } from '../../shared/ttl-cache';
import { AppTargetsCache, loadAppTargets } from './app-targets';
import { SignedOnce } from './events';
import { kickMessage, parseRelayMessage } from './relay-message';
import { tellStream } from './stream-decision';
import { StreamRegistry, type DeviceChannel, type Stream } from './stream-registry';
import { catalogCollections } from '../../shared/catalog/collections';

/**
 * A client that stops reading is dropped once this much waits for it: events are a few hundred
 * bytes, so this is hundreds of unread events, and the server never buffers without bound.
 */
export const MAX_UNREAD_BYTES = 512 * 1024;

export interface PushHubOptions {
  readonly db: Db;
  readonly redis: Redis;
  readonly live: LiveState;
  readonly redisUrl: string;
  readonly prefix: string;
  readonly keys: PushKeys;
  readonly webUrl: string;
  readonly log: Logger;
  readonly now: () => Date;
  readonly touchEveryMs: number;
}

const RESYNC_RETRY_MS = 1_000;

export class PushHub {
  private readonly streams = new StreamRegistry();
  private readonly processId = randomUUID();
  /** APK documents never change once stored: each is read once (a connect needs one or two). */
  private readonly apks = new TtlCache<ApkDoc | null>(10 * 60_000, 1_000);
  /** The app and its targets, per app and notice (a connect reads no database). */
  private readonly targets = new AppTargetsCache((appId) =>
    loadAppTargets(this.o.db, appId, (id) => this.apk(id)),
  );
  private subscriber: Redis | undefined;
  private touchTimer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: PushHubOptions) {}

  private get live(): LiveState {
    return this.o.live;
  }

  /** Open streams here by channel kind (SSE streams, PushLink SDK sockets). */
  openStreams(): Record<PushChannelKind, number> {
    return this.streams.sizeByKind();
  }

  start(): void {
    const channel = redisKeys(this.o.prefix).noticeChannel();
    this.subscriber = createWorkerRedis(this.o.redisUrl, 'apkrelay:api-notices');
    this.subscriber.on('error', (err: Error) =>
      this.o.log.warn({ err: err.message }, 'redis (notices) error'),
    );
    this.subscriber.on('message', (_channel, message: string) => void this.onMessage(message));
    // After a reconnection, notices published meanwhile were missed: resynchronise every stream.
    let first = true;
    this.subscriber.on('ready', () => {
      if (!first) void this.resyncAll();
      first = false;
    });
    // On a cluster the subscription moves to another node when its node is lost, without a
    // 'ready': resynchronise once the new subscription has had time to be made.
    this.subscriber.on('-node', () => this.resyncSoon());
    // Not awaited: the API starts (and answers 503 where Redis is needed) while Redis is down;
    // ioredis subscribes once it connects and again after every reconnection.
    this.subscriber
      .subscribe(channel)
      .catch((err: Error) => this.o.log.warn({ err: err.message }, 'notice subscription failed'));
    this.touchTimer = setInterval(() => void this.touch(), this.o.touchEveryMs);
    this.touchTimer.unref();
  }

  /**
   * Registers a connected stream (SSE or PushLink socket) and sends what the installation should
   * know now. `lastDownloadedMd5`: what a PushLink device reported (null for SSE streams: their
   * give-ups follow offers only). `lastEventId`: where an SSE client resumes ('' for none).
   */
  async attach(
    appDoc: AppDoc,
    key: string,
    deviceId: string,
    card: Pick<InstallationCard, 'status' | 'installedMd5' | 'lastDownloadedMd5' | 'metadata'>,
    conn: DeviceChannel,
    lastEventId: string,
  ): Promise<void> {
    const appId = appDoc._id.toHexString();
    const scope = { accountId: appDoc.accountId, package: appDoc.package };
    const [offer, latest] = await Promise.all([
      this.live.offer(scope, key),
      this.latestNoticeId(appId),
      this.live.seen(scope, [key], this.o.now()),
      this.o.redis.publish(
        redisKeys(this.o.prefix).noticeChannel(),
        kickMessage(key, this.processId),
      ),
    ]);
    if (!conn.isConnected) {
      // Gone while its state was read: register nothing (no close event would remove it).
      return;
    }
    const stream: Stream = {
      installationId: key,
      deviceId,
      metadata: card.metadata,
      conn,
      installedMd5: card.installedMd5,
      lastDownloadedMd5: card.lastDownloadedMd5,
      enabled: card.status === 'enabled',
      offer,
    };
    this.streams.add(appId, scope, stream, () => {
      // Seen until now: the stream was open (a PushLink socket counts only its lines).
      if (conn.beatsWhileOpen) this.live.seen(scope, [key], this.o.now()).catch(() => undefined);
    });
    conn.greet(card.status, latest);
    // A client that saw the latest notice needs no repeat of the offer; a give-up still goes.
    // What one device is sent on connecting is signed for it alone, and now: a replay is fresh.
    await this.sync(appId, [key], latest !== '0-0' && lastEventId === latest, deviceId);
  }

  private async onMessage(message: string): Promise<void> {
    try {
      const m = parseRelayMessage(message);
      if (m?.kind === 'kick') {
        if (m.processId !== this.processId) this.streams.drop(m.installationId);
      } else if (m?.kind === 'notice') {
        const app = this.streams.app(m.appId);
        if (app) await this.sync(m.appId, [...app.streams.keys()], false);
      }
    } catch (err) {
      this.o.log.error({ err: (err as Error).message }, 'push relay failed');
    }
  }

  /**
   * Resynchronises every open stream after the notice subscription came back. Redis may still be
   * unreachable for the other connection (the subscriber can be ready first): then it tries
   * again a second later, until it succeeds or the hub closes. Never rejects.
   */
  private async resyncAll(): Promise<void> {
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
    try {
      for (const [appId, app] of this.streams.apps()) {
        await this.sync(appId, [...app.streams.keys()], false);
      }
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, 'push resync failed; retrying in 1 s');
      if (this.closed) return;
      this.resyncTimer = setTimeout(() => void this.resyncAll(), RESYNC_RETRY_MS);
      this.resyncTimer.unref();
    }
  }

  private resyncSoon(): void {
    if (this.closed || this.resyncTimer) return;
    this.resyncTimer = setTimeout(() => void this.resyncAll(), RESYNC_RETRY_MS);
    this.resyncTimer.unref();
  }

  private latestNoticeId(appId: string): Promise<string> {
    return latestNoticeId(this.o.redis, this.o.prefix, appId);
  }

  /** Drops the stream of an installation in every process (the owner changed its status). */
  async kick(installationId: string): Promise<void> {
    await this.o.redis.publish(
      redisKeys(this.o.prefix).noticeChannel(),
      kickMessage(installationId, 'owner'),
    );
  }

  /**
   * Decides for each given open stream of the app, sends its events, then records what was sent.
   * Reads only by _id equality (the app, its rollout, at most a few APKs), and only once per app
   * and notice (app-targets.ts): any other filter may scan the collection (shared/devices/store.ts
   * says where). Each distinct event is signed once and sent to
   * every stream it concerns. `device`: whom the events name, the one device connecting, or `*` for
   * a fan-out to the app's streams (one signature for all of them).
   */
  private async sync(
    appId: string,
    ids: string[],
    quietOffer: boolean,
    device = '*',
  ): Promise<void> {
    const group = this.streams.app(appId);
    if (!group || ids.length === 0) return;
    // The notice id first: the targets are those loaded after it (app-targets.ts).
    const eventId = await this.latestNoticeId(appId);
    const found = await this.targets.get(appId, eventId);
    if (!found) return;
    const { app, loaded: targets } = found;
    const ctx = { keys: this.o.keys, webUrl: this.o.webUrl, now: this.o.now() };
    const notices = new SignedOnce(ctx, eventId, { account: app.accountId, device });
    const changed: Array<[string, OfferState]> = [];
    /** New offers by the offered APK's MD5 (a rollout offers two APKs in one sync). */
    const offers = new Map<string, string[]>();
    for (const id of ids) {
      const stream = group.streams.get(id);
      if (!stream?.conn.isConnected || !stream.enabled) continue;
      if (stream.conn.unreadBytes() > MAX_UNREAD_BYTES) {
        group.streams.delete(id);
        stream.conn.destroy();
        this.o.log.warn({ installationId: id }, 'push stream dropped: its client stopped reading');
        continue;
      }
      const offered = stream.offer.offeredApkId ? await this.apk(stream.offer.offeredApkId) : null;
      const current = targetApk(targets, stream);
      const before = stream.offer.offeredApkId;
      const offer = tellStream(stream, { pkg: app.package, current, offered, quietOffer, notices });
      if (offer) changed.push([id, (stream.offer = offer)]);
      if (current && offer?.offeredApkId && offer.offeredApkId !== before) {
        offers.set(current.md5, [...(offers.get(current.md5) ?? []), id]);
      }
    }
    await this.live.setOffers(group.scope, changed);
    await this.recordOffers(group.scope, offers, ctx.now);
  }

  /** The install funnel's "offered" marks (shared/funnel/): a lost mark must not stop pushes. */
  private async recordOffers(scope: AppScope, offers: Map<string, string[]>, now: Date) {
    for (const [md5, ids] of offers) {
      await recordOffers(this.o.db, scope, md5, ids, now).catch((err: Error) =>
        this.o.log.warn({ err: err.message }, 'funnel offers not recorded'),
      );
    }
  }

  /**
   * The APK documents by id, through the hub's cache (targets and offers read through here).
   */
  private apk(id: string): Promise<ApkDoc | null> {
    const { apks } = catalogCollections(this.o.db);
    return this.apks.get(
      id,
      () => apks.findOne({ _id: new ObjectId(id) }),
      (doc) => doc !== null,
    );
  }

  /**
   * Open SSE streams count as "seen": one sorted-set update per app and thousand streams. A
   * PushLink socket records its own sightings, one per line it receives.
   */
  private async touch(): Promise<void> {
    const now = this.o.now();
    for (const [, { scope, streams }] of this.streams.apps()) {
      const beating = [...streams.values()].filter((s) => s.conn.beatsWhileOpen);
      await this.live
        .seen(
          scope,
          beating.map((s) => s.installationId),
          now,
        )
        .catch((err: Error) =>
          this.o.log.warn({ err: err.message }, 'touching open streams failed'),
        );
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.touchTimer) clearInterval(this.touchTimer);
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    this.streams.endAll();
    if (this.subscriber) await closeRedis(this.subscriber);
  }
}
