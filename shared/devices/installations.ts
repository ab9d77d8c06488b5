/**
 * Installations: registration (one document per account + package + device id, found else
 * inserted, never upserted: store.ts), heartbeat, and the owner's enable/disable. A new
 * installation is enabled when it can claim a seat (see seats.ts); the `status` field mirrors seat
 * ownership and is reconciled after every write of the document (`mirrorSeat`), so a crash between
 * claiming and recording heals itself, and so does a status put back by a racing write (the default
 * store writes a whole document back on each update: a device's report racing the owner's disable
 * could re-enable it).
 */
import { createHash } from 'node:crypto';
import { MongoServerError, ObjectId, type Collection, type Db } from 'mongodb';
import type { Account } from '../accounts/types';
import { findApp } from '../catalog/queries';
import { AppError } from '../errors';
import type { RegistrationInput } from './registration-input';
import type { NewAdmission } from './registration-throttle';
import { claimSeat, holdsSeat, releaseSeat, type SeatCursor } from './seats';
import { type InstallationDoc, type InstallationStatus, type KeyValue } from './types';
import { devicesCollections } from './collections';

/**
 * The id of the installation of `deviceId` for (account, package): derived, so every lookup is an
 * `_id` equality (store.ts says why). 96 bits of SHA-256; the unique key index stays as a guard.
 */
export function installationId(accountId: string, pkg: string, deviceId: string): ObjectId {
  const digest = createHash('sha256').update(`${accountId}\n${pkg}\n${deviceId}`).digest();
  return new ObjectId(digest.subarray(0, 12));
}

export function findInstallation(
  db: Db,
  accountId: string,
  pkg: string,
  deviceId: string,
): Promise<InstallationDoc | null> {
  return devicesCollections(db).installations.findOne({
    _id: installationId(accountId, pkg, deviceId),
  });
}

/** A new installation's document: nothing known yet but its key, disabled until it holds a seat. */
export function newInstallation(
  _id: ObjectId,
  key: Pick<InstallationDoc, 'accountId' | 'package' | 'deviceId'>,
  now: Date,
  known: Partial<InstallationDoc> = {},
): InstallationDoc {
  return {
    _id,
    ...key,
    status: 'disabled',
    installedMd5: null,
    lastDownloadedMd5: null,
    lastDownloadAt: null,
    strategy: null,
    device: { brand: null, model: null, osVersion: null, sdkInt: null },
    metadata: [],
    location: null,
    registeredAt: now,
    lastSeenAt: now,
    ...known,
  };
}

export const REGISTER_TEXT = {
  INVALID_KEY:
    'Device register failed: Invalid API Key. Probably caused by the wrong configuration.',
  INVALID_PACKAGE: 'Device register failed: Invalid Package. Probably you never uploaded this app.',
} as const;

export class UnknownPackageError extends AppError {
  constructor() {
    super('NOT_FOUND', { message: REGISTER_TEXT.INVALID_PACKAGE });
  }
}

/** The fields a registration with `input` sets on the document (a new one starts from these). */
export function registrationChanges(input: RegistrationInput, now: Date): Partial<InstallationDoc> {
  const set: Partial<InstallationDoc> = {
    lastSeenAt: now,
    channel: input.channel,
    plVersion: input.plVersion,
  };
  if (input.installedMd5) set.installedMd5 = input.installedMd5;
  if (input.lastDownloadedMd5) set.lastDownloadedMd5 = input.lastDownloadedMd5;
  if (input.strategy) set.strategy = input.strategy;
  if (input.device) set.device = input.device;
  if (input.metadata) set.metadata = input.metadata;
  if (input.location) set.location = { ...input.location, at: now };
  return set;
}

/**
 * What a registration with `input` writes into the document, as a short digest (everything
 * `registrationChanges` sets but the times): two inputs with the same fingerprint leave the same document.
 * A registration keeps it on the installation's card (cards.ts), so a device that subscribes
 * again with the same fields (a PushLink SDK reconnecting) is recognised without the database.
 */
export function registrationFingerprint(input: RegistrationInput): string {
  const fields = [
    input.channel,
    input.plVersion,
    input.installedMd5,
    input.lastDownloadedMd5,
    input.strategy,
    input.device && [
      input.device.brand,
      input.device.model,
      input.device.osVersion,
      input.device.sdkInt,
    ],
    input.metadata?.map((kv) => [kv.key, kv.value]) ?? null,
    input.location && [input.location.lat, input.location.lon],
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 22);
}

/** What a heartbeat reports that the document does not hold yet; null when nothing. */
export function reportedChanges(
  doc: {
    readonly installedMd5: string | null;
    readonly lastDownloadedMd5: string | null;
    readonly metadata: readonly KeyValue[];
  },
  input: RegistrationInput,
): Partial<InstallationDoc> | null {
  const set: Partial<InstallationDoc> = {};
  if (input.installedMd5 && input.installedMd5 !== doc.installedMd5)
    set.installedMd5 = input.installedMd5;
  if (input.lastDownloadedMd5 && input.lastDownloadedMd5 !== doc.lastDownloadedMd5)
    set.lastDownloadedMd5 = input.lastDownloadedMd5;
  if (input.metadata && !sameMetadata(input.metadata, doc.metadata)) set.metadata = input.metadata;
  return Object.keys(set).length > 0 ? set : null;
}

function sameMetadata(a: readonly KeyValue[], b: readonly KeyValue[]): boolean {
  return (
    a.length === b.length && a.every((kv, i) => kv.key === b[i]?.key && kv.value === b[i]?.value)
  );
}

/**
 * How a registration runs: `appKnown` when the caller found the app already (a per-process cache,
 * lookups.ts), and the account's seat cursor (seats.ts; without one, claims read the seats).
 */
export interface RegistrationOptions {
  readonly appKnown?: boolean;
  readonly seatCursor?: SeatCursor;
  /** A hint that the installation is new (it has no card): its document is inserted first. */
  readonly likelyNew?: boolean;
  /** Told when a new installation finds no free seat (it is registered disabled). */
  readonly overPlan?: (doc: InstallationDoc) => Promise<void>;
  /** Asked before an installation is created (registration-throttle.ts); unset: no limit. */
  readonly admitNew?: () => Promise<NewAdmission>;
}

const ADMITTED: NewAdmission = { waitMs: 0, withdraw: () => Promise.resolve() };

/** A refused new installation: 429 with how long to wait. */
function registrationsLimited(waitMs: number): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError('DEVICE_REGISTRATIONS_RATE_LIMITED', { details: { retryAfterSeconds } });
}

export async function registerInstallation(
  db: Db,
  account: Account,
  input: RegistrationInput,
  now: Date,
  options: RegistrationOptions = {},
): Promise<InstallationDoc> {
  const written = await writeRegistration(db, account, input, now, options);
  const doc = await settleRegistration(db, account, written, now, options.seatCursor);
  if (written.created && doc.status === 'disabled') await options.overPlan?.(doc);
  return doc;
}

/**
 * A registration's first step: the document, updated if known, else inserted (a new one is
 * `disabled` until its seat is claimed). (Not an upsert with $setOnInsert: store.ts says why.) Two
 * first registrations of one device at once: the insert that loses the unique index updates the
 * winner's document instead. `likelyNew`: the insert is tried first (one request instead of two
 * for a new installation; a known one then costs one more). A creation needs `admitNew`'s
 * admission: refused, the device is told to wait (DEVICE_REGISTRATIONS_RATE_LIMITED) unless it
 * turns out to be known; a known one gives its admission back.
 */
export async function writeRegistration(
  db: Db,
  account: Account,
  input: RegistrationInput,
  now: Date,
  {
    appKnown = false,
    likelyNew = false,
    admitNew = () => Promise.resolve(ADMITTED),
  }: Omit<RegistrationOptions, 'seatCursor' | 'overPlan'> = {},
): Promise<{ doc: InstallationDoc; created: boolean }> {
  if (!appKnown && !(await findApp(db, account.id, input.package))) {
    throw new UnknownPackageError();
  }
  const col = devicesCollections(db).installations;
  const key = { accountId: account.id, package: input.package, deviceId: input.deviceId };
  const _id = installationId(account.id, input.package, input.deviceId);
  const set = registrationChanges(input, now);
  const update = () => col.findOneAndUpdate({ _id }, { $set: set }, { returnDocument: 'after' });
  if (!likelyNew) {
    const doc = await update();
    if (doc) return { doc, created: false };
  }
  const admission = await admitNew();
  if (admission.waitMs > 0) {
    const known = likelyNew ? await update() : null;
    if (!known) throw registrationsLimited(admission.waitMs);
    await admission.withdraw();
    return { doc: known, created: false };
  }
  const fresh = newInstallation(_id, key, now, set);
  try {
    await col.insertOne(fresh);
    return { doc: fresh, created: true };
  } catch (err) {
    if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
    await admission.withdraw();
    const won = await update();
    if (!won) {
      throw new AppError('STORE_INCONSISTENT', {
        message: 'installation vanished during registration',
        cause: err,
      });
    }
    return { doc: won, created: false };
  }
}

/** A registration's second step: a new installation claims a seat; the status mirrors the seat. */
export async function settleRegistration(
  db: Db,
  account: Account,
  { doc, created }: { doc: InstallationDoc; created: boolean },
  now: Date,
  seatCursor?: SeatCursor,
): Promise<InstallationDoc> {
  if (!created) return mirrorSeat(db, doc);
  const plan = account.plan.installations;
  const claimed = await claimSeat(db, account.id, plan, doc._id, now, seatCursor);
  return syncStatus(devicesCollections(db).installations, doc, claimed ? 'enabled' : 'disabled');
}

async function syncStatus(
  col: Collection<InstallationDoc>,
  doc: InstallationDoc,
  status: InstallationStatus,
) {
  if (doc.status === status) return doc;
  await col.updateOne({ _id: doc._id }, { $set: { status } });
  return { ...doc, status };
}

/**
 * `doc`, just written, with the status its seat says, put right in the store when it differs. The seat is the truth: it is claimed by an insert and freed by a delete, which are
 * exclusive on every store, while a write of the document may carry an older status back. A writer
 * that looks at the seat after its own write sees every seat change made before that write landed.
 */
export async function mirrorSeat(db: Db, doc: InstallationDoc): Promise<InstallationDoc> {
  const { status } = await withSeatStatus(db, doc);
  return syncStatus(devicesCollections(db).installations, doc, status);
}

/** `doc` with the status its seat says, written nowhere (a reader's view: cards.ts). */
export async function withSeatStatus(db: Db, doc: InstallationDoc): Promise<InstallationDoc> {
  const status = (await holdsSeat(db, doc._id)) ? 'enabled' : 'disabled';
  return doc.status === status ? doc : { ...doc, status };
}

/** The owner enables (claims a seat; 409 when the plan is full) or disables (frees it). */
export async function setInstallationStatus(
  db: Db,
  account: Account,
  pkg: string,
  deviceId: string,
  status: InstallationStatus,
  now: Date,
  seatCursor?: SeatCursor,
): Promise<InstallationDoc> {
  const col = devicesCollections(db).installations;
  const doc = await col.findOne({ _id: installationId(account.id, pkg, deviceId) });
  if (!doc) throw new AppError('NOT_FOUND', { message: 'no such installation' });
  // The seat first, then the status, whatever the document said: in between, the document holds
  // the old status and the seat the new one, so a device's write that looks at the seat meanwhile
  // writes the new status (never the old one back), and cards take the seat's. A crash in between
  // leaves the status to the next write.
  if (status === 'disabled') {
    await releaseSeat(db, doc._id);
  } else if (
    !(await claimSeat(db, account.id, account.plan.installations, doc._id, now, seatCursor))
  ) {
    throw new AppError('PLAN_FULL');
  }
  await col.updateOne({ _id: doc._id }, { $set: { status } });
  return { ...doc, status };
}
