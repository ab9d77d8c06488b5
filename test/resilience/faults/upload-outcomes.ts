/**
 * What a fault test learns from upload replies, and how it checks that an acknowledged upload was
 * stored exactly once with no orphan blob. Shared by the Redis-restart and disk-full tests.
 */
import { type ObjectId, type Db } from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOUSEKEEPING_SCHEDULE } from '../../../shared/queues/housekeeping';
import { gridFsBlobStore } from '../../../shared/storage/blob-store';
import { housekeepingProcessor } from '../../../workers/uploads/housekeeping-processor';
import { request, type Reply } from '../../helpers/http';
import { jobContext } from '../../helpers/job-context';
import type { TestStack } from '../../helpers/stack';

/** An upload the service took responsibility for: it must end `done`, stored once. */
export interface Acknowledged {
  readonly uploadId: string;
  readonly via: 'legacy-sync' | 'json-async' | 'legacy-async';
}

export type Outcome =
  | { readonly kind: 'acknowledged'; readonly upload: Acknowledged }
  | { readonly kind: 'acknowledged-done' }
  | { readonly kind: 'retryable'; readonly retryAfter: string }
  | { readonly kind: 'unexpected'; readonly detail: string };

const STATUS_ID = /\/api\/v2\/uploads\/([A-Za-z0-9_-]{22})/;

/** Classifies a reply of `POST /apps/api_upload` (sync) or `POST /api/v2/apps/:pkg/apks`. */
export function classify(reply: Reply, via: Acknowledged['via']): Outcome {
  if (reply.status === 503) {
    const retryAfter = reply.headers['retry-after'];
    return retryAfter
      ? { kind: 'retryable', retryAfter: String(retryAfter) }
      : { kind: 'unexpected', detail: `503 without Retry-After: ${reply.text}` };
  }
  if (via === 'legacy-sync' && reply.status === 200 && reply.text === 'deploy successful') {
    // The legacy reply carries no upload id: the test finds these by account afterwards.
    return { kind: 'acknowledged-done' };
  }
  if (reply.status === 202) {
    const id = STATUS_ID.exec(reply.text)?.[1];
    if (id) return { kind: 'acknowledged', upload: { uploadId: id, via } };
  }
  return { kind: 'unexpected', detail: `${reply.status} ${reply.text.slice(0, 200)}` };
}

/**
 * Polls `GET /api/v2/uploads/:id` through the API until every upload has a verdict. On timeout it
 * returns what it has, not throws: the caller counts the uploads still open as lost in its figures,
 * then fails on them.
 */
export async function waitForVerdicts(
  admin: string,
  ca: string,
  apiKey: string,
  ids: readonly string[],
  timeoutMs: number,
): Promise<Map<string, string>> {
  const statuses = new Map<string, string>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const id of ids) {
      if (statuses.get(id) === 'done' || statuses.get(id) === 'failed') continue;
      const reply = await request(`${admin}/api/v2/uploads/${id}`, {
        headers: { authorization: `Bearer ${apiKey}` },
        ca,
      }).catch(() => null);
      if (reply?.status === 200) statuses.set(id, reply.json<{ status: string }>().status);
      else if (reply?.status === 404) statuses.set(id, 'missing');
    }
    const open = ids.filter((id) => !['done', 'failed', 'missing'].includes(statuses.get(id)!));
    if (open.length === 0 || Date.now() > deadline) return statuses;
    await sleep(500);
  }
}

export interface StorageAudit {
  /** Upload ids (of this account) whose upload is done with exactly one APK record and blob. */
  readonly storedOnce: Set<string>;
  /** Problems found: duplicates, missing blobs, orphan files or chunks. */
  readonly problems: string[];
}

/** Every APK record of the account has its blob; every blob and chunk in the database has its record. */
export async function auditStorage(db: Db, accountId: string): Promise<StorageAudit> {
  const problems: string[] = [];
  const uploads = await db
    .collection<{ _id: string; status: string }>('uploads')
    .find({ accountId })
    .toArray();
  const apks = await db
    .collection<{ uploadId: string; blobId: string; package: string; versionCode: number }>('apks')
    .find({ accountId })
    .toArray();
  const recordsByUpload = new Map<string, number>();
  for (const a of apks) recordsByUpload.set(a.uploadId, (recordsByUpload.get(a.uploadId) ?? 0) + 1);
  const versions = new Map<string, number>();
  for (const a of apks) {
    const key = `${a.package} ${a.versionCode}`;
    versions.set(key, (versions.get(key) ?? 0) + 1);
  }
  for (const [key, n] of versions) if (n > 1) problems.push(`${key} stored ${n}x`);

  const files = await db
    .collection<{ _id: ObjectId | string; length: number }>('apks.files')
    .find({})
    .toArray();
  // Random upload ids are the files' ids as they are; older ones are ObjectIds.
  const fileIds = new Set(
    files.map((f) => (typeof f._id === 'string' ? f._id : f._id.toHexString())),
  );
  // Blobs of every account: an orphan is a blob no APK record at all owns.
  const owned = new Set(
    (await db.collection<{ blobId: string }>('apks').find({}).toArray()).map((a) => a.blobId),
  );
  for (const id of fileIds) if (!owned.has(id)) problems.push(`orphan blob ${id}`);
  const chunkOwners = (await db.collection('apks.chunks').distinct('files_id')) as Array<
    ObjectId | string
  >;
  for (const o of chunkOwners) {
    const id = typeof o === 'string' ? o : o.toHexString();
    if (!fileIds.has(id)) problems.push(`orphan chunks of ${id}`);
  }

  const storedOnce = new Set<string>();
  for (const u of uploads) {
    const records = recordsByUpload.get(u._id) ?? 0;
    const apk = apks.find((a) => a.uploadId === u._id);
    if (u.status === 'done' && records === 1 && apk && fileIds.has(apk.blobId)) {
      storedOnce.add(u._id);
    } else if (u.status === 'done') {
      problems.push(`upload ${u._id} done with ${records} records, blob ${String(apk?.blobId)}`);
    }
  }
  return { storedOnce, problems };
}

/**
 * Housekeeping's orphan sweep, run as its schedule would a day later. An upload answered 503
 * while Redis could not say whether its job landed keeps its blob (api/uploads/ingest-client.ts);
 * with no job, this sweep fails it and removes the blob once it is stale.
 */
export async function sweepADayLater(stack: TestStack): Promise<{ removed: number }> {
  const { payload } = HOUSEKEEPING_SCHEDULE;
  const sweep = housekeepingProcessor({
    db: stack.mongo.db,
    blobs: gridFsBlobStore(stack.mongo.db),
    now: () => new Date(Date.now() + payload.olderThanMs + 60_000),
  });
  return sweep(payload, jobContext());
}
