/**
 * Bulk installations for the fan-out benchmark, written straight into the deployment's database
 * with the documents `registerInstallation` produces (an enabled installation and the plan seat it
 * holds, in a slot the API registrations left free, and its card in Redis, as a registration
 * leaves it: see shared/devices/cards.ts). Used beyond the first registrations, which go through
 * the API: a seat claim falls back to reading every seat of the account (not an `_id` look-up:
 * shared/devices/store.ts) once random slots start colliding, so registering 10,000 devices
 * through the API would dominate the run, and it is setup, not what is measured.
 */
import {
  installationId,
  newInstallation,
  registrationChanges,
  registrationFingerprint,
} from '../../../shared/devices/installations';
import type { RegistrationInput } from '../../../shared/devices/registration-input';
import { cardOf, liveState } from '../../../shared/devices/live-state';
import { INSTALLATIONS, type InstallationDoc } from '../../../shared/devices/types';
import { connectMongo } from '../../../shared/storage/mongo';
import { closeRedis, createWorkerRedis } from '../../../shared/storage/redis';
import { devicesCollections } from '../../../shared/devices/collections';

const BATCH = 1_000;

export interface SeedSpec {
  readonly mongoUrl: string;
  readonly redisUrl: string;
  readonly queuePrefix: string;
  readonly accountId: string;
  readonly package: string;
  readonly installedMd5: string;
  readonly deviceIds: readonly string[];
  /** The account's plan: seeded seats take the slots below it that API registrations left free. */
  readonly plan: number;
  /**
   * What each device registered with, when it did (a PushLink subscribe): its document and card
   * are then the ones that registration leaves (the card with its fingerprint, cards.ts), as for
   * a device that subscribed before and reconnects. Without it, the bare documents of
   * `newInstallation`, with cards as any reader leaves them.
   */
  readonly registration?: (deviceId: string) => RegistrationInput;
}

export async function seedInstallations(spec: SeedSpec): Promise<void> {
  const mongo = await connectMongo(spec.mongoUrl);
  const redis = createWorkerRedis(spec.redisUrl, 'apkrelay:bench-seed');
  const live = liveState(redis, spec.queuePrefix);
  const app = { accountId: spec.accountId, package: spec.package };
  try {
    const now = new Date();
    const taken = new Set(
      (await devicesCollections(mongo.db).seats.find({ accountId: spec.accountId }).toArray()).map(
        (s) => s.slot,
      ),
    );
    const free: number[] = [];
    for (let slot = 0; slot < spec.plan && free.length < spec.deviceIds.length; slot++) {
      if (!taken.has(slot)) free.push(slot);
    }
    if (free.length < spec.deviceIds.length) throw new Error('the plan has too few free seats');
    for (let from = 0; from < spec.deviceIds.length; from += BATCH) {
      const ids = spec.deviceIds.slice(from, from + BATCH);
      const inputs = ids.map((deviceId) => spec.registration?.(deviceId));
      const docs: InstallationDoc[] = ids.map((deviceId, i) => {
        const input = inputs[i];
        return newInstallation(
          installationId(spec.accountId, spec.package, deviceId),
          { accountId: spec.accountId, package: spec.package, deviceId },
          now,
          input
            ? { ...registrationChanges(input, now), status: 'enabled' }
            : { status: 'enabled', installedMd5: spec.installedMd5 },
        );
      });
      await mongo.db.collection<InstallationDoc>(INSTALLATIONS).insertMany(docs);
      await devicesCollections(mongo.db).seats.insertMany(
        docs.map((d, i) => ({
          _id: `${spec.accountId}:${free[from + i]!}`,
          accountId: spec.accountId,
          slot: free[from + i]!,
          installationId: d._id,
          claimedAt: now,
        })),
      );
      await Promise.all(
        docs.map((d, i) => {
          const input = inputs[i];
          const card = input
            ? { ...cardOf(d), fingerprint: registrationFingerprint(input) }
            : cardOf(d);
          return live.setCard(app, d._id.toHexString(), card);
        }),
      );
    }
  } finally {
    await mongo.close();
    await closeRedis(redis);
  }
}
