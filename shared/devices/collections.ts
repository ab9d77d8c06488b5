/**
 * The devices feature's collections and their indexes (every feature of shared/ has one such file,
 * of the same shape: `<feature>Collections(db)` and `ensure<Feature>Indexes(db)`; shared/indexes.ts
 * gathers the indexes). A seat is one of the account's numbered places under its plan's limit,
 * held by one installation.
 */
import type { Db, ObjectId } from 'mongodb';
import { collectionsOf } from '../collections';
import { INSTALLATIONS, type InstallationDoc } from './types';

export interface SeatDoc {
  _id: string;
  accountId: string;
  slot: number;
  installationId: ObjectId;
  claimedAt: Date;
}

export const SEATS = 'seats';

export function devicesCollections(db: Db) {
  return collectionsOf<{ installations: InstallationDoc; seats: SeatDoc }>(db, {
    installations: INSTALLATIONS,
    seats: SEATS,
  });
}

export async function ensureDevicesIndexes(db: Db): Promise<void> {
  const { installations, seats } = devicesCollections(db);
  await installations.createIndex(
    { accountId: 1, package: 1, deviceId: 1 },
    { unique: true, name: 'account_package_device' },
  );
  await installations.createIndex(
    { accountId: 1, package: 1, lastSeenAt: -1 },
    { name: 'account_package_seen' },
  );
  await seats.createIndex(
    { installationId: 1 },
    { unique: true, name: 'one_seat_per_installation' },
  );
  await seats.createIndex({ accountId: 1, slot: 1 }, { name: 'account_slot' });
}
