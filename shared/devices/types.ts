/**
 * Installations (spec section 2): one per (account, package, device id), i.e. one app process
 * using the client library on one device. The first N distinct installations of an account are
 * enabled (N = plan quantity); later ones are disabled: visible, but given no update and no
 * exception slot.
 */
import type { ObjectId } from 'mongodb';
import type { InstallOutcome } from './install-outcome';

export type InstallationStatus = 'enabled' | 'disabled';

export interface KeyValue {
  readonly key: string;
  readonly value: string;
}

export interface InstallationDoc {
  _id: ObjectId;
  accountId: string;
  package: string;
  deviceId: string;
  status: InstallationStatus;
  /** MD5 of the APK the installation runs (as reported). */
  installedMd5: string | null;
  /** MD5 of the last APK it downloaded (reported, or recorded by /download). */
  lastDownloadedMd5: string | null;
  lastDownloadAt: Date | null;
  strategy: string | null;
  device: {
    brand: string | null;
    model: string | null;
    osVersion: string | null;
    sdkInt: number | null;
  };
  /** User-supplied pairs, as an array: a document key may not hold `.` or start with `$`. */
  metadata: KeyValue[];
  location: { lat: number; lon: number; at: Date } | null;
  /**
   * What the OS answered to the last installation the device attempted, as its heartbeat reported
   * it (absent until one is reported); `reportedAt` by the server's clock.
   */
  lastInstall?: (InstallOutcome & { reportedAt: Date }) | null;
  /**
   * How it reached the push host at its last registration: apkrelay's stream (`sse`) or the
   * PushLink SDK's socket (`pushlink`); absent on documents written before it was recorded (sse).
   */
  channel?: 'sse' | 'pushlink';
  /** The PushLink SDK's version a `pushlink` installation reported; null or absent otherwise. */
  plVersion?: string | null;
  registeredAt: Date;
  /**
   * Last registration or reported change. Sightings in between (heartbeats, open streams) are in
   * Redis (live-state.ts): the later of the two is when the installation was last seen.
   */
  lastSeenAt: Date;
}

export const INSTALLATIONS = 'installations';
