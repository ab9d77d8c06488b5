/**
 * What an app's owner reads of its exceptions (the JSON views and the web pages): groups, one
 * report, the hourly counts, a screenshot's bytes. Every read is scoped by account.
 */
import type { Db } from 'mongodb';
import type { Readable } from 'node:stream';
import type { AppDoc } from '../catalog/types';
import {
  type ExceptionDoc,
  type ExceptionGroupDoc,
  exceptionsCollections,
  groupIdOf,
} from './collections';

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

/** One page of the app's groups (optionally only those with handled or unhandled reports), and their total. */
export async function groupsPage(
  db: Db,
  app: AppDoc,
  query: { kind: GroupKind; page: number; perPage: number },
): Promise<{ total: number; groups: ExceptionGroupDoc[] }> {
  const { groups } = exceptionsCollections(db);
  const filter = {
    accountId: app.accountId,
    appId: app._id.toHexString(),
    ...(query.kind === 'handled' ? { handledCount: { $gt: 0 } } : {}),
    ...(query.kind === 'unhandled' ? { unhandledCount: { $gt: 0 } } : {}),
  };
  const [total, list] = await Promise.all([
    groups.countDocuments(filter),
    groups
      .find(filter)
      .sort({ lastSeen: -1, _id: 1 })
      .skip((query.page - 1) * query.perPage)
      .limit(query.perPage)
      .toArray(),
  ]);
  return { total, groups: list };
}

/** A screenshot's whole bytes (bounded by MAX_EXCEPTION_BYTES at intake). */
export async function readWhole(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The app's group of this fingerprint. */
export function groupOfApp(
  db: Db,
  app: AppDoc,
  fingerprint: string,
): Promise<ExceptionGroupDoc | null> {
  return exceptionsCollections(db).groups.findOne({
    _id: groupIdOf(app._id.toHexString(), fingerprint),
    accountId: app.accountId,
  });
}

/** A report as a list shows it: no stack beyond its first line, no log, no metadata. */
export type ReportLine = Pick<
  ExceptionDoc,
  '_id' | 'version' | 'deviceId' | 'handled' | 'receivedAt' | 'fingerprint'
> & { readonly title: string };

const LINE_PROJECTION = {
  version: 1,
  deviceId: 1,
  handled: 1,
  receivedAt: 1,
  fingerprint: 1,
  stack: 1,
} as const;

function lineOf(doc: ExceptionDoc): ReportLine {
  return {
    _id: doc._id,
    version: doc.version,
    deviceId: doc.deviceId,
    handled: doc.handled,
    receivedAt: doc.receivedAt,
    fingerprint: doc.fingerprint,
    title: doc.stack?.[0] ?? '',
  };
}

/** Every report of a group of the app, newest first. */
export async function reportsOfGroup(db: Db, app: AppDoc, groupId: string): Promise<ReportLine[]> {
  const docs = await exceptionsCollections(db)
    .reports.find(
      { accountId: app.accountId, appId: app._id.toHexString(), groupId },
      { projection: LINE_PROJECTION },
    )
    .sort({ receivedAt: -1, _id: -1 })
    .toArray();
  return docs.map(lineOf);
}

/** The newest `limit` reports one device of the app sent, newest first. */
export async function reportsOfDevice(
  db: Db,
  app: AppDoc,
  deviceId: string,
  limit: number,
): Promise<ReportLine[]> {
  const docs = await exceptionsCollections(db)
    .reports.find(
      { accountId: app.accountId, appId: app._id.toHexString(), deviceId },
      { projection: LINE_PROJECTION },
    )
    .sort({ receivedAt: -1, _id: -1 })
    .limit(limit)
    .toArray();
  return docs.map(lineOf);
}

/** The app's unhandled reports received in [from, to): who sent them, from which APK, when. */
export function unhandledBetween(
  db: Db,
  app: AppDoc,
  from: Date,
  to: Date,
): Promise<Array<Pick<ExceptionDoc, 'deviceId' | 'apkId' | 'receivedAt'>>> {
  return exceptionsCollections(db)
    .reports.find(
      {
        accountId: app.accountId,
        appId: app._id.toHexString(),
        handled: false,
        receivedAt: { $gte: from, $lt: to },
      },
      { projection: { _id: 0, deviceId: 1, apkId: 1, receivedAt: 1 } },
    )
    .toArray();
}
