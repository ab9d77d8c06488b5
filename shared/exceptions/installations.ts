/**
 * Whether an installation may send exceptions. Installations are registered by shared/devices
 * (collection `installations`: one document per account, package and device, with `status`); this
 * port is all the exception intake needs of them. A device never registered is 'unknown' and
 * allowed: PushLink devices may report a crash before their first registration completes.
 */
import type { Db } from 'mongodb';
import { installationId } from '../devices/installations';
import { INSTALLATIONS, type InstallationDoc } from '../devices/types';

export type InstallationStatus = 'enabled' | 'disabled' | 'unknown';

export interface InstallationLookup {
  status(accountId: string, pkg: string, deviceId: string): Promise<InstallationStatus>;
}

export function mongoInstallationLookup(db: Db): InstallationLookup {
  return {
    async status(accountId, pkg, deviceId) {
      const doc = await db
        .collection<Pick<InstallationDoc, '_id' | 'status'>>(INSTALLATIONS)
        .findOne({ _id: installationId(accountId, pkg, deviceId) }, { projection: { status: 1 } });
      if (!doc) return 'unknown';
      return doc.status === 'disabled' ? 'disabled' : 'enabled';
    },
  };
}
