/**
 * The push hub of one API process: its own open device streams, grouped by app, and the relay of
 * version notices published through Redis (shared/notices/). No device list lives only here:
 * what each installation runs is in MongoDB, what it was offered or gave up and when it was last
 * seen is in Redis (devices/live-state.ts), so any process can serve any device.
 * A device connecting here makes other processes drop their stream of it (a "kick" on the same
 * channel), so one process at a time speaks for an installation and a give-up is sent once.
 *
 * Read in this order: the streams it holds (StreamRegistry: only the bookkeeping), the messages
 * between API processes (RelayMessage), what one sync tells one stream (tellStream: decide.ts's
 * decision, no I/O), and the hub itself (PushHub: reads, signs once, sends, records). How each
 * protocol says a decision is its channel's business (channel.ts, legacy/).
 */
import { randomUUID } from 'node:crypto';
import { ObjectId, type Db } from 'mongodb';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import { refOf, targetApk } from '../../shared/rollouts/targets';
import { recordOffers } from '../../shared/funnel/marks';
import { latestNoticeId } from '../../shared/notices/append-notice';
import { abandonedDownload, decide, gaveUpMd5Mark, type ApkRef } from '../../shared/devices/decide';
import type { AppScope, InstallationCard, LiveState, OfferState } from '../../shared/devices/store';
import type { PushKeys } from '../../shared/devices/push-signing';
import type { PushChannelKind } from '../../shared/devices/registration-input';
import type { Logger } from '../../shared/log';
import { redisKeys } from '../../shared/redis-keys';
import { closeRedis, createWorkerRedis, type Redis } from '../../shared/storage/redis';
import { TtlCache } from '../../shared/ttl-cache';
import { AppTargetsCache, loadAppTargets } from './app-targets';
import { SignedOnce, type DeviceChannel } from './channel';
import { catalogCollections } from '../../shared/catalog/collections';

/** An installation's open stream in this process, and what the hub knows of the installation. */
export interface Stream {
  readonly installationId: string;
  /** The device id and metadata as of the connect: what target selection reads. */
  readonly deviceId: string;
  readonly metadata: readonly { readonly key: string; readonly value: string }[];
  readonly conn: DeviceChannel;
  /**
   * What this process knows of the installation, loaded at connect and kept up to date by its
   * own writes: one process speaks for an installation, and a status change by the owner drops
   * the stream (see PushHub.kick), so a notice needs no read per installation.
   */
  readonly installedMd5: string | null;
  /** The last download a PushLink device reported (abandoned downloads); null for SSE streams. */
  readonly lastDownloadedMd5: string | null;
  readonly enabled: boolean;
  offer: OfferState;
}

/** The open streams of one app in this process. */
export interface AppStreams {
  readonly scope: AppScope;
  readonly streams: Map<string, Stream>;
}

/**
 * The device streams one API process holds, grouped by app. Only the bookkeeping: registering a
 * stream (replacing the same installation's older one), forgetting it when it disconnects, and
 * dropping it when another process or the owner asks. What to send is PushHub's; how to say it,
 * each channel's.
 */
export class StreamRegistry {
  private readonly byApp = new Map<string, AppStreams>();

  get size(): number {
    let n = 0;
    for (const app of this.byApp.values()) n += app.streams.size;
    return n;
  }

  /** Open streams by channel kind (every kind listed, 0 when none is open). */
  sizeByKind(): Record<PushChannelKind, number> {
    const counts: Record<PushChannelKind, number> = { sse: 0, pushlink: 0 };
    for (const app of this.byApp.values())
      for (const s of app.streams.values()) counts[s.conn.kind]++;
    return counts;
  }

  /** The app's group, or undefined when this process holds none of its streams. */
  app(appId: string): AppStreams | undefined {
    return this.byApp.get(appId);
  }

  /** Every app with open streams here, with its id. */
  apps(): IterableIterator<[string, AppStreams]> {
    return this.byApp.entries();
  }

  /**
   * Registers a connected stream in its app's group (made on first use), ending an older stream
   * of the same installation, and forgets it when its connection closes (the group too, once
   * empty); `onGone` runs then. The group is looked up here, not earlier: one that emptied while
   * this stream was being prepared may have been removed. The same connection added again (a
   * PushLink device resubscribing on its socket) replaces its entry and is not ended.
   */
  add(appId: string, scope: AppScope, stream: Stream, onGone: () => void): void {
    const group = this.byApp.get(appId) ?? { scope, streams: new Map<string, Stream>() };
    this.byApp.set(appId, group);
    const { installationId: key, conn } = stream;
    const older = group.streams.get(key);
    group.streams.set(key, stream);
    if (older?.conn === conn) return;
    older?.conn.end(); // the same device reconnected before its old stream closed
    conn.onceClosed(() => {
      if (group.streams.get(key)?.conn === conn) group.streams.delete(key);
      if (group.streams.size === 0 && this.byApp.get(appId) === group) this.byApp.delete(appId);
      onGone();
    });
  }

  /** Ends the installation's stream here, if this process holds one. */
  drop(installationId: string): void {
    for (const { streams } of this.byApp.values()) {
      const stream = streams.get(installationId);
      if (stream) {
        streams.delete(installationId);
        stream.conn.end();
      }
    }
  }

  /** Ends every stream (shutdown). */
  endAll(): void {
    for (const { streams } of this.byApp.values()) for (const s of streams.values()) s.conn.end();
    this.byApp.clear();
  }
}

/**
 * What travels on the notice channel between API processes: the notices made current publishes
 * (shared/notices/append-notice.ts, naming an app), and the kicks a process publishes when a
 * device connects to it, so the others drop their stream of that installation.
 */
export type RelayMessage =
  | { readonly kind: 'kick'; readonly installationId: string; readonly processId: string }
  | { readonly kind: 'notice'; readonly appId: string };

/** The kick of `installationId` by `processId` ('owner' when its owner changed its status). */
export function kickMessage(installationId: string, processId: string): string {
  return JSON.stringify({ kind: 'kick', installationId, processId });
}

const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * A message of the channel, or null for one to ignore (a kick without its installation, anything
 * without an app). Throws on text that is not JSON.
 */
export function parseRelayMessage(message: string): RelayMessage | null {
  const m = JSON.parse(message) as Record<string, unknown> | null;
  if (m === null || typeof m !== 'object') return null;
  if (m.kind === 'kick') {
    return text(m.installationId)
      ? {
          kind: 'kick',
          installationId: m.installationId,
          processId: text(m.processId) ? m.processId : '',
        }
      : null;
  }
  return text(m.appId) ? { kind: 'notice', appId: m.appId } : null;
}

/** Give-ups remembered per installation: an APK's id and, for PushLink devices, its MD5 mark. */
export const GAVE_UP_KEPT = 40;

export interface SyncContext {
  readonly pkg: string;
  /** The target APK (PushHub.targetApk). */
  readonly current: ApkDoc | null;
  /** The APK the stream was last offered, if any. */
  readonly offered: ApkDoc | null;
  /** The client saw the latest notice (SSE Last-Event-ID): an offer made already is not repeated. */
  readonly quietOffer: boolean;
  /** The app's APKs' versionCodes by MD5: an installation ahead of its target is offered nothing. */
  readonly versionCodes: ReadonlyMap<string, number>;
  readonly notices: SignedOnce;
}

/**
 * What one open stream is told by one sync: decide.ts's decision (and abandonedDownload for
 * channels that report their last download, PushLink sockets), said by the stream's channel. No
 * I/O: the hub reads the APKs and writes the offer states.
 * Tells the stream what the decision says; returns its new offer state, or null when unchanged.
 * A give-up is remembered by the APK's id and by its MD5 (a PushLink device reports abandoned
 * downloads by MD5 only), so either way it is given up once.
 */
export function tellStream(stream: Stream, c: SyncContext): OfferState | null {
  const { offer } = stream;
  const { current, offered } = c;
  const target: ApkRef | null = current ? refOf(current) : null;
  const installedVersionCode = c.versionCodes.get(stream.installedMd5 ?? '') ?? null;
  const installed = { installedMd5: stream.installedMd5, installedVersionCode };
  const d = decide(target, { ...installed, ...offer }, offered?.md5 ?? null);
  let gaveUp = offer.gaveUp;
  if (d.giveup) gaveUp = [...gaveUp, d.giveup, ...(offered ? [gaveUpMd5Mark(offered.md5)] : [])];
  const dropped = stream.lastDownloadedMd5
    ? abandonedDownload(target, { ...stream, installedVersionCode, gaveUp })
    : null;
  if (dropped) gaveUp = [...gaveUp, gaveUpMd5Mark(dropped)];
  const repeat = c.quietOffer && d.version !== null && offer.offeredApkId === d.version.id;
  stream.conn.deliver(c.notices, {
    package: c.pkg,
    version: d.version && current && !repeat ? current : null,
    giveup: d.giveup
      ? { apkId: d.giveup, apk: offered }
      : dropped
        ? { apkId: null, apk: null }
        : null,
    installedMd5: stream.installedMd5,
  });
  if (gaveUp === offer.gaveUp && d.offeredApkId === offer.offeredApkId) return null;
  return { offeredApkId: d.offeredApkId, gaveUp: gaveUp.slice(-GAVE_UP_KEPT) };
}

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
    const { app, loaded: targets, versionCodes } = found;
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
      const c = { pkg: app.package, current, offered, quietOffer, notices, versionCodes };
      const offer = tellStream(stream, c);
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
