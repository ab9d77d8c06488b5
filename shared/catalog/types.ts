/**
 * Apps, APKs and uploads as stored in MongoDB. An app is per account, keyed by package name. The
 * current APK is a pointer on the app document, so setting it is one atomic single-document update
 * and two APKs can never both be current.
 */
import type { ObjectId } from 'mongodb';
import type { Verdict } from '../uploads/verdicts';

export interface AppDoc {
  _id: ObjectId;
  accountId: string;
  package: string;
  /** From the newest APK's manifest when it holds a literal label. */
  label: string | null;
  /** SHA-256 of the signing certificate Android uses for this app (newest in a v3 lineage). */
  signerSha256: string;
  currentApkId: ObjectId | null;
  /** Bumped at every change of the current APK; orders version notices. */
  currentVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ApkDoc {
  _id: ObjectId;
  appId: ObjectId;
  accountId: string;
  package: string;
  versionCode: number;
  versionName: string | null;
  minSdk: number | null;
  targetSdk: number | null;
  label: string | null;
  debuggable: boolean;
  schemes: { v1: boolean; v2: boolean; v3: boolean; v31: boolean };
  md5: string;
  sha256: string;
  size: number;
  signerSha256: string;
  /** v3 proof-of-rotation lineage, oldest first (empty without rotation). */
  lineage: string[];
  whatsnew: string | null;
  uploadedAt: Date;
  /** Account id of the uploader. */
  uploader: string;
  uploadId: string;
  /** GridFS file id of the ciphertext (the upload's staged blob, kept). */
  blobId: string;
  wrappedKey: string;
  noncePrefix: string;
}

export type UploadStatus = 'queued' | 'processing' | 'done' | 'failed';

export interface UploadDoc {
  /** The upload id, also the ingest job id and the staged blob's id. */
  _id: string;
  accountId: string;
  status: UploadStatus;
  verdict: Verdict | null;
  /**
   * The package the upload must be of, when the route or key named one (a CI token's uploads
   * always do); absent on uploads made before it was recorded. Decides which CI tokens see it.
   */
  package?: string | null;
  createdAt: Date;
  updatedAt: Date;
}
