/**
 * The installation store: the one reader and writer of installations (their documents, their
 * cards in Redis, last-seen times and offer state, seats). Device requests, the push hub, the
 * exception intake, downloads and the owner's views ask it; nothing else opens the
 * `installations` or `seats` collections or the installations' Redis keys. Behind this facade:
 * installations.ts (documents, registration), seats.ts, live-state.ts (Redis), cards.ts (the
 * card protocol that keeps Redis in step with the documents) and lookups.ts (per-process caches).
 *
 * What the store works around. The embedded MongoDB-protocol server, FerretDB v1 on its SQLite
 * backend, scans a collection for any filter, even an `_id` equality (its SQLite plan ignores the
 * index): about 40 ms a read or update at 10,000 installations. It has no transactions, and an
 * upsert's `$setOnInsert` drops null and empty-array values. So, for installations:
 * - ids are derived from (account, package, device id), so every look-up is an `_id` equality;
 * - what changes for every device every few seconds (last seen, offers) lives in Redis, and device
 *   requests read a card there instead of the document (cards.ts); the account and app of a
 *   device request come from per-process caches (lookups.ts);
 * - a registration finds, else inserts (no upsert), and seats are single-document claims on a
 *   unique `_id` (seats.ts), never a transaction.
 * A MongoDB server needs none of this; all of it stays correct there.
 */
import { ObjectId } from 'mongodb';
import type { Account } from '../accounts/types';
import type { AppDoc } from '../catalog/types';
import { registerWithCard, writeInstallation, type StoreDeps } from './cards';
import {
  findInstallation,
  installationId,
  registerInstallation,
  registrationFingerprint,
} from './installations';
import { cardOf, lastSeenAt, seenFilter, type AppScope, type InstallationCard } from './live-state';
import type { RegistrationInput } from './registration-input';
import type { NewAdmission } from './registration-throttle';
import type { InstallationDoc } from './types';
import { devicesCollections } from './collections';

export {
  cardInstallationLookup,
  changeInstallationStatus,
  installationCard,
  registerWithCard,
  REGISTERING_MS,
  writeInstallation,
  type StoreDeps,
} from './cards';
export {
  findInstallation,
  installationId,
  newInstallation,
  registerInstallation,
  registrationChanges,
  registrationFingerprint,
  REGISTER_TEXT,
  reportedChanges,
  settleRegistration,
  UnknownPackageError,
  writeRegistration,
} from './installations';
export {
  cardOf,
  lastSeenAt,
  liveState,
  seenFilter,
  type AppScope,
  type CardEntry,
  type InstallationCard,
  type LiveState,
  type OfferState,
} from './live-state';
export { deviceLookups, type DeviceLookups } from './lookups';
export { listInstallationPage, type InstallationFilter, type InstallationQuery } from './listing';

/**
 * A registration: the document and its seat, with the card protocol around them (cards.ts).
 * `app`: the app of `input.package`, which the caller found (lookups.ts), so the registration
 * reads nothing it knows already. `admitNew`: asked before a new installation is created
 * (registration-throttle.ts).
 */
export function registerDevice(
  deps: StoreDeps & { readonly overPlan?: OverPlanHook },
  account: Account,
  app: AppDoc,
  input: RegistrationInput,
  now: Date,
  admitNew?: () => Promise<NewAdmission>,
): Promise<InstallationDoc> {
  const id = installationId(account.id, input.package, input.deviceId);
  const scope = { accountId: account.id, package: input.package };
  if (app.accountId !== account.id || app.package !== input.package) {
    throw new Error("registerDevice: the app is not the registration's");
  }
  const hook = deps.overPlan;
  const options = {
    appKnown: true,
    seatCursor: deps.live.seatCursor,
    ...(hook ? { overPlan: (doc: InstallationDoc) => hook(account, doc) } : {}),
    ...(admitNew ? { admitNew } : {}),
  };
  return registerWithCard(
    deps,
    scope,
    id,
    (hadCard) =>
      registerInstallation(deps.db, account, input, now, { ...options, likelyNew: !hadCard }),
    registrationFingerprint(input),
  );
}

/**
 * A device (re)subscribing on its push connection (a PushLink SDK socket): the installation's
 * card after registering it, as `registerDevice` does, unless its card holds the fingerprint of
 * this very input. Then the last registration wrote exactly these fields and no other writer has
 * touched the installation since (every other write replaces the card by one without a
 * fingerprint, cards.ts), so registering again would change nothing but `lastSeenAt`, which the
 * push hub records in Redis on attaching: no database request at all. A fleet reconnecting after
 * a restart then costs one Redis read per device; a changed field still registers in full.
 */
export async function subscribeDevice(
  deps: StoreDeps & { readonly overPlan?: OverPlanHook },
  account: Account,
  app: AppDoc,
  input: RegistrationInput,
  now: Date,
  admitNew?: () => Promise<NewAdmission>,
): Promise<InstallationCard> {
  const id = installationId(account.id, input.package, input.deviceId).toHexString();
  const known = await deps.live.card({ accountId: account.id, package: input.package }, id);
  if (known?.fingerprint !== undefined && known.fingerprint === registrationFingerprint(input)) {
    return known;
  }
  return cardOf(await registerDevice(deps, account, app, input, now, admitNew));
}

/** Told when a new installation of `account` registers past its plan (webhooks). */
export type OverPlanHook = (account: Account, doc: InstallationDoc) => Promise<void>;

/** What a device reported (hashes, metadata, an install outcome) and that it was seen `now`. */
export function recordReported(
  deps: StoreDeps,
  app: AppScope,
  id: ObjectId,
  set: Partial<InstallationDoc>,
  now: Date,
): Promise<InstallationDoc | null> {
  return writeInstallation(deps, app, id, () =>
    devicesCollections(deps.db).installations.findOneAndUpdate(
      { _id: id },
      { $set: { ...set, lastSeenAt: now } },
      { returnDocument: 'after' },
    ),
  );
}

/** The installation fetched the APK with this MD5 (the update funnel). */
export function recordDownload(
  deps: StoreDeps,
  app: AppScope,
  id: ObjectId,
  md5: string,
  now: Date,
): Promise<InstallationDoc | null> {
  return writeInstallation(deps, app, id, () =>
    devicesCollections(deps.db).installations.findOneAndUpdate(
      { _id: id },
      { $set: { lastDownloadedMd5: md5, lastDownloadAt: now } },
      { returnDocument: 'after' },
    ),
  );
}

/** An installation's document and when it was last seen (its own time or a later sighting). */
export async function installationSeen(
  deps: StoreDeps,
  app: AppScope,
  deviceId: string,
): Promise<{ doc: InstallationDoc; lastSeenAt: Date } | null> {
  const doc = await findInstallation(deps.db, app.accountId, app.package, deviceId);
  if (!doc) return null;
  const seen = (await deps.live.lastSeen(app, [doc._id.toHexString()]))[0] ?? null;
  return { doc, lastSeenAt: lastSeenAt(doc, seen) };
}

/** How many of the app's installations were seen since `since`. */
export async function countOnline(deps: StoreDeps, app: AppScope, since: Date): Promise<number> {
  const seen = await seenFilter(deps.live, app, since, true);
  return devicesCollections(deps.db).installations.countDocuments({ ...scopeOf(app), ...seen });
}

/** How many of the app's installations are enabled (hold a seat). */
export function countEnabled(deps: StoreDeps, app: AppScope): Promise<number> {
  return devicesCollections(deps.db).installations.countDocuments({
    ...scopeOf(app),
    status: 'enabled',
  });
}

/**
 * The app's enabled installations seen since `since`, counted by the MD5 they report running
 * (the rollout health gate's installation-hours). One query over the app's installations.
 */
export async function onlineByInstalled(
  deps: StoreDeps,
  app: AppScope,
  since: Date,
): Promise<Map<string, number>> {
  const seen = await seenFilter(deps.live, app, since, true);
  const docs = await devicesCollections(deps.db)
    .installations.find(
      { ...scopeOf(app), status: 'enabled', ...seen },
      { projection: { installedMd5: 1 } },
    )
    .toArray();
  const counts = new Map<string, number>();
  for (const d of docs) {
    if (d.installedMd5) counts.set(d.installedMd5, (counts.get(d.installedMd5) ?? 0) + 1);
  }
  return counts;
}

/** An app's installations at a glance: by the MD5 they report, enabled, online. */
export interface AppInstallations {
  /** Installations by the MD5 they report running (null: none reported). */
  readonly byMd5: Map<string | null, number>;
  readonly total: number;
  readonly enabled: number;
  /** Seen since the given time, as countOnline counts them. */
  readonly online: number;
}

/**
 * Every app's installations at a glance (the apps list): one query over the account's
 * installations, and the apps' sightings in Redis; online as countOnline counts it.
 */
export async function installationsByApp(
  deps: StoreDeps,
  accountId: string,
  packages: readonly string[],
  since: Date,
): Promise<Map<string, AppInstallations>> {
  const [docs, seen] = await Promise.all([
    devicesCollections(deps.db)
      .installations.find(
        { accountId },
        { projection: { package: 1, installedMd5: 1, lastSeenAt: 1, status: 1 } },
      )
      .toArray(),
    Promise.all(packages.map((p) => deps.live.seenSince({ accountId, package: p }, since))),
  ]);
  const seenIds = new Set(seen.flat());
  const out = new Map(
    packages.map((p) => [
      p,
      { byMd5: new Map<string | null, number>(), total: 0, enabled: 0, online: 0 },
    ]),
  );
  for (const d of docs) {
    const row = out.get(d.package);
    if (!row) continue;
    row.total += 1;
    if (d.status === 'enabled') row.enabled += 1;
    if (d.lastSeenAt >= since || seenIds.has(d._id.toHexString())) row.online += 1;
    row.byMd5.set(d.installedMd5, (row.byMd5.get(d.installedMd5) ?? 0) + 1);
  }
  return out;
}

/** How many of the app's installations report running the APK with this MD5. */
export function countRunning(deps: StoreDeps, app: AppScope, md5: string): Promise<number> {
  return devicesCollections(deps.db).installations.countDocuments({
    ...scopeOf(app),
    installedMd5: md5,
  });
}

function scopeOf(app: AppScope): AppScope {
  return { accountId: app.accountId, package: app.package };
}

/** The device ids of the app's installations among these (hex ids); unknown ones are left out. */
export async function deviceIdsOf(
  deps: Pick<StoreDeps, 'db'>,
  app: AppScope,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const docs = await devicesCollections(deps.db)
    .installations.find(
      { _id: { $in: ids.map((id) => ObjectId.createFromHexString(id)) }, ...scopeOf(app) },
      { projection: { deviceId: 1 } },
    )
    .toArray();
  return new Map(docs.map((d) => [d._id.toHexString(), d.deviceId]));
}

/**
 * How many of the app's installations seen since `since` run each MD5 (null: none reported), for
 * version adoption. From Redis: the sightings (registration, heartbeat, open stream) and the cards;
 * only installations without a card are read from their documents. Reading the app's documents
 * instead took seconds at 10,000 installations (docs/funnel.md).
 */
export async function versionsSeenSince(
  deps: StoreDeps,
  app: AppScope,
  since: Date,
): Promise<Map<string | null, number>> {
  const ids = await deps.live.seenSince(app, since);
  const cards = await deps.live.cards(app, ids);
  const counts = new Map<string | null, number>();
  const add = (md5: string | null) => counts.set(md5, (counts.get(md5) ?? 0) + 1);
  const missing = ids.filter((_, i) => cards[i] === null);
  for (const card of cards) if (card) add(card.installedMd5);
  if (missing.length > 0) {
    const docs = await devicesCollections(deps.db)
      .installations.find(
        { _id: { $in: missing.map((id) => ObjectId.createFromHexString(id)) }, ...scopeOf(app) },
        { projection: { installedMd5: 1 } },
      )
      .toArray();
    for (const d of docs) add(d.installedMd5);
  }
  return counts;
}
