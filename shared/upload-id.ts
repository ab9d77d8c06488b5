/**
 * Upload ids (issue 31): 128 random bits in base64url (22 characters), so one account's upload id
 * says nothing about another's (ObjectIds, their predecessor, could be counted up to). An upload id
 * is also its ingest job's id and its blob's id, so every place that reads one back (routes, job
 * payloads, the blob store and cache) checks it here. Ids of the old shape (24 hex characters, an
 * ObjectId) stay valid: uploads made before the change keep resolving.
 */
import { randomBytes } from 'node:crypto';

/** A new upload id: 16 random bytes, base64url. */
export function newUploadId(): string {
  return randomBytes(16).toString('base64url');
}

const RANDOM_ID = /^[A-Za-z0-9_-]{22}$/;
const OBJECT_ID = /^[0-9a-f]{24}$/;

/** Whether `value` is an upload id: a random one, or an ObjectId of an older upload. */
export function isUploadId(value: string): boolean {
  return RANDOM_ID.test(value) || OBJECT_ID.test(value);
}

/** Whether an upload id is of the old shape (an ObjectId's hex string). */
export function isObjectIdShaped(value: string): boolean {
  return OBJECT_ID.test(value);
}

/** The pattern of an upload id inside a longer text (the CLI reads one from a status URL). */
export const UPLOAD_ID_SOURCE = '[A-Za-z0-9_-]{22}|[0-9a-f]{24}';
