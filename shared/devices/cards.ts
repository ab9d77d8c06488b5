/**
 * Device requests read an installation's card (devices/live-state.ts) instead of its document,
 * and every writer keeps the card in step with the document:
 * - a status change (owner) drops the card, writes the document, then sets the card;
 * - a registration (which creates the document, then decides its status by claiming a seat)
 *   replaces the card by a placeholder, writes, then replaces its own placeholder by the card
 *   (compare-and-set: a status change in between wins);
 * - any other write (reported changes) drops the card, writes the document, then offers the
 *   document's card only if none was set meanwhile;
 * - a reader that finds no card reads the document and offers its card the same way; one that
 *   finds a live placeholder offers nothing (the document is half-written: a new installation is
 *   `disabled` until its seat is claimed), and one that finds an expired placeholder (a registration
 *   that died) replaces it.
 * A card set by a status change or a registration is therefore never overwritten by an older read.
 * Pushes, heartbeats, exception reports and downloads all read the status from the card. It can be
 * stale only if Redis fails between a status change's document write and its card write: the
 * owner's request then fails (503) and its retry sets the card.
 *
 * The status on a card comes from the seat, never from the document alone: on the default store a
 * write of the document can carry back the status it read before the owner's change. So every
 * writer looks at the seat after its write and puts the document right (`mirrorSeat`), a reader
 * that fills a card takes the status from the seat without writing (`withSeatStatus`: a reader
 * writing a status it saw before the owner's change would carry it back itself), and the owner's
 * change writes the status after the seat (`setInstallationStatus`).
 */
import type { Db, ObjectId } from 'mongodb';
import type { Account } from '../accounts/types';
import type { InstallationLookup } from '../exceptions/installations';
import { TtlCache } from '../ttl-cache';
import { installationId, mirrorSeat, setInstallationStatus, withSeatStatus } from './installations';
import { cardOf, type AppScope, type InstallationCard, type LiveState } from './live-state';
import type { InstallationDoc, InstallationStatus } from './types';
import { devicesCollections } from './collections';

/** What the store reads and writes: the installations' documents and their Redis side. */
export interface StoreDeps {
  readonly db: Db;
  readonly live: LiveState;
}
type CardDeps = StoreDeps;

/** The installation's card; null when the device is not registered for this app. */
export async function installationCard(
  deps: CardDeps,
  app: AppScope,
  id: ObjectId,
): Promise<InstallationCard | null> {
  const entry = await deps.live.cardEntry(app, id.toHexString());
  if (entry?.card) return entry.card;
  const found = await devicesCollections(deps.db).installations.findOne({ _id: id });
  if (!found) return null;
  const doc = await withSeatStatus(deps.db, found);
  if (!entry) await deps.live.backfillCard(app, id.toHexString(), cardOf(doc));
  else if (entry.registeringUntilMs <= Date.now()) {
    await deps.live.replacePlaceholder(app, id.toHexString(), entry.raw, cardOf(doc));
  }
  return cardOf(doc);
}

/** How long a registration's placeholder keeps readers from backfilling (it normally takes ms). */
export const REGISTERING_MS = 30_000;

/**
 * Runs a registration (it creates or refreshes the document and decides its status): see above.
 * `register` is told whether the installation had a card, a hint that its document exists.
 * `fingerprint`: of the fields the registration writes, kept on the card it leaves.
 */
export async function registerWithCard(
  deps: CardDeps,
  app: AppScope,
  id: ObjectId,
  register: (hadCard: boolean) => Promise<InstallationDoc>,
  fingerprint?: string,
): Promise<InstallationDoc> {
  const hex = id.toHexString();
  const { placeholder, hadCard } = await deps.live.beginRegistration(app, hex, REGISTERING_MS);
  let doc: InstallationDoc;
  try {
    doc = await register(hadCard);
  } catch (err) {
    await deps.live.replacePlaceholder(app, hex, placeholder, null).catch(() => undefined);
    throw err;
  }
  const card = fingerprint ? { ...cardOf(doc), fingerprint } : cardOf(doc);
  await deps.live.replacePlaceholder(app, hex, placeholder, card);
  return doc;
}

/**
 * The exception intake's view of installations, from their cards: a registration or a status change
 * takes effect at once, and a report costs a Redis read instead of a database one. A device id
 * without a card and without a document is remembered as unregistered for `missTtlMs` (its reports
 * are refused; the card is still read first, so a registration in the meantime is seen at once).
 */
export function cardInstallationLookup(
  deps: CardDeps,
  options: { missTtlMs?: number; clock?: () => number } = {},
): InstallationLookup {
  const misses = new TtlCache<InstallationCard | null>(
    options.missTtlMs ?? 5_000,
    100_000,
    options.clock,
  );
  return {
    async status(accountId, pkg, deviceId) {
      const app = { accountId, package: pkg };
      const id = installationId(accountId, pkg, deviceId);
      const entry = await deps.live.cardEntry(app, id.toHexString());
      if (entry && !entry.card && entry.registeringUntilMs > Date.now()) return 'registering';
      const card =
        entry?.card ??
        (await misses.get(
          id.toHexString(),
          () => installationCard(deps, app, id),
          (found) => found === null,
        ));
      if (!card) return 'unknown';
      return card.status === 'disabled' ? 'disabled' : 'enabled';
    },
  };
}

/** Runs a write of the installation's document (not its status) and keeps the card in step. */
export async function writeInstallation(
  deps: CardDeps,
  app: AppScope,
  id: ObjectId,
  write: () => Promise<InstallationDoc | null>,
): Promise<InstallationDoc | null> {
  await deps.live.dropCard(app, id.toHexString());
  const written = await write();
  if (!written) return null;
  const doc = await mirrorSeat(deps.db, written);
  await deps.live.backfillCard(app, id.toHexString(), cardOf(doc));
  return doc;
}

/** The owner enables or disables an installation; its stream, wherever it is, restarts. */
export async function changeInstallationStatus(
  deps: CardDeps & {
    readonly push: { kick(installationId: string): Promise<unknown> };
    readonly now: () => Date;
  },
  account: Account,
  pkg: string,
  deviceId: string,
  status: InstallationStatus,
): Promise<InstallationDoc> {
  const app = { accountId: account.id, package: pkg };
  const id = installationId(account.id, pkg, deviceId).toHexString();
  await deps.live.dropCard(app, id);
  const now = deps.now();
  const cursor = deps.live.seatCursor;
  const inst = await setInstallationStatus(deps.db, account, pkg, deviceId, status, now, cursor);
  await deps.live.setCard(app, id, cardOf(inst));
  await deps.push.kick(id);
  return inst;
}
