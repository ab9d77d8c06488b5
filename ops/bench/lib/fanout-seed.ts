/**
 * Bulk installations for the fan-out benchmark, written straight into the deployment's database
 * with the documents `registerInstallation` produces (an enabled installation and the plan seat it
 * holds). Used beyond the first few registrations, which go through the API: a first registration
 * claims its seat by reading every seat of the account (shared/devices/seats.ts), a full scan on
 * FerretDB, so registering 10,000 devices through the API takes hours on the embedded services.
 */
import { ObjectId } from 'mongodb';
import { seats } from '../../../shared/devices/seats';
import { INSTALLATIONS, type InstallationDoc } from '../../../shared/devices/types';
import { connectMongo } from '../../../shared/storage/mongo';

const BATCH = 1_000;

export interface SeedSpec {
  readonly mongoUrl: string;
  readonly accountId: string;
  readonly package: string;
  readonly installedMd5: string;
  readonly deviceIds: readonly string[];
  /** The first plan slot to take (those below are held by API registrations). */
  readonly firstSlot: number;
}

export async function seedInstallations(spec: SeedSpec): Promise<void> {
  const mongo = await connectMongo(spec.mongoUrl);
  try {
    const now = new Date();
    for (let from = 0; from < spec.deviceIds.length; from += BATCH) {
      const docs: InstallationDoc[] = spec.deviceIds.slice(from, from + BATCH).map((deviceId) => ({
        _id: new ObjectId(),
        accountId: spec.accountId,
        package: spec.package,
        deviceId,
        status: 'enabled',
        installedMd5: spec.installedMd5,
        lastDownloadedMd5: null,
        lastDownloadAt: null,
        strategy: null,
        device: { brand: null, model: null, osVersion: null, sdkInt: null },
        metadata: [],
        location: null,
        offeredApkId: null,
        gaveUp: [],
        registeredAt: now,
        lastSeenAt: now,
      }));
      await mongo.db.collection<InstallationDoc>(INSTALLATIONS).insertMany(docs);
      await seats(mongo.db).insertMany(
        docs.map((d, i) => ({
          _id: `${spec.accountId}:${spec.firstSlot + from + i}`,
          accountId: spec.accountId,
          slot: spec.firstSlot + from + i,
          installationId: d._id,
          claimedAt: now,
        })),
      );
    }
  } finally {
    await mongo.close();
  }
}
