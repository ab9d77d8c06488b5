/**
 * Whether an installation may send exceptions. Installations are registered by shared/devices
 * (collection `installations`: one document per account, package and device, with `status`); this
 * port is all the exception intake needs of them. The API answers it from the installations'
 * cards in Redis (shared/devices/cards.ts). A device never registered is 'unknown' and its
 * reports are refused: reports are taken only from registered installations (docs/exceptions.md).
 */

/** 'registering': the device's registration is being written; ask again in a moment. */
export type InstallationStatus = 'enabled' | 'disabled' | 'unknown' | 'registering';

export interface InstallationLookup {
  status(accountId: string, pkg: string, deviceId: string): Promise<InstallationStatus>;
}
