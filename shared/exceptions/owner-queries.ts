/**
 * What an app's owner reads of its exceptions (the JSON views and the web pages): groups, one
 * report, the hourly counts, a screenshot's bytes. Every read is scoped by account.
 */
import type { Db } from 'mongodb';
import type { Readable } from 'node:stream';
import type { AppDoc } from '../catalog/types';
import { type ExceptionDoc, type ExceptionGroupDoc, exceptionsCollections } from './collections';

const HOUR_MS = 3600 * 1000;

/** The app's groups, most recently seen first (the JSON view). */
export function latestGroups(
  db: Db,
  scope: { accountId: string; package: string },
  limit: number,
): Promise<ExceptionGroupDoc[]> {
  return exceptionsCollections(db).groups.find(scope).sort({ lastSeen: -1 }).limit(limit).toArray();
}

/** One report of (account, package) by id (the JSON view). */
export function reportOfPackage(
  db: Db,
  scope: { accountId: string; package: string },
  id: string,
): Promise<ExceptionDoc | null> {
  return exceptionsCollections(db).reports.findOne({ _id: id, ...scope });
}

/** One report of this app by id (the web pages). */
export function reportOfApp(db: Db, app: AppDoc, id: string): Promise<ExceptionDoc | null> {
  return exceptionsCollections(db).reports.findOne({
    _id: id,
    accountId: app.accountId,
    appId: app._id.toHexString(),
  });
}

/** Reports of this app received since `since`. */
export function reportsSince(db: Db, app: AppDoc, since: Date): Promise<number> {
  return exceptionsCollections(db).reports.countDocuments({
    accountId: app.accountId,
    appId: app._id.toHexString(),
    receivedAt: { $gte: since },
  });
}

/** When each of the account's reports since `since` came, of which app, handled or not. */
export function reportTimesSince(
  db: Db,
  accountId: string,
  since: Date,
): Promise<Array<Pick<ExceptionDoc, 'appId' | 'receivedAt' | 'handled'>>> {
  return exceptionsCollections(db)
    .reports.find({ accountId, receivedAt: { $gte: since } })
    .project<Pick<ExceptionDoc, 'appId' | 'receivedAt' | 'handled'>>({
      _id: 0,
      appId: 1,
      receivedAt: 1,
      handled: 1,
    })
    .toArray();
}

export type GroupKind = '' | 'handled' | 'unhandled';

/**
 * One page of the app's groups (optionally only those with handled or unhandled reports), their
 * total, and the reports received in each of the 24 hours before `nowMs`, oldest hour first.
 */
export async function groupsPage(
  db: Db,
  app: AppDoc,
  query: { kind: GroupKind; page: number; perPage: number; nowMs: number },
): Promise<{ total: number; groups: ExceptionGroupDoc[]; hourly: number[] }> {
  const { groups, reports } = exceptionsCollections(db);
  const scope = { accountId: app.accountId, appId: app._id.toHexString() };
  const hours = Array.from({ length: 24 }, (_, i) => query.nowMs - (24 - i) * HOUR_MS);
  const filter = {
    ...scope,
    ...(query.kind === 'handled' ? { handledCount: { $gt: 0 } } : {}),
    ...(query.kind === 'unhandled' ? { unhandledCount: { $gt: 0 } } : {}),
  };
  const [total, list, ...hourly] = await Promise.all([
    groups.countDocuments(filter),
    groups
      .find(filter)
      .sort({ lastSeen: -1, _id: 1 })
      .skip((query.page - 1) * query.perPage)
      .limit(query.perPage)
      .toArray(),
    ...hours.map((from) =>
      reports.countDocuments({
        ...scope,
        receivedAt: { $gte: new Date(from), $lt: new Date(from + HOUR_MS) },
      }),
    ),
  ]);
  return { total, groups: list, hourly };
}

/** A screenshot's whole bytes (bounded by MAX_EXCEPTION_BYTES at intake). */
export async function readWhole(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
