/**
 * Every job names the account it acts for and the app or upload it acts on. The API checked that
 * pairing before enqueueing, but a job can also reach Redis another way (the queue board's "add"
 * did, issue 24), so each processor re-checks it before writing anything. A job whose app is not
 * its account's never will be: `UnrecoverableError`, failed at once, nothing written. A Mongo
 * outage while checking is thrown as is and retried.
 */
import { UnrecoverableError } from 'bullmq';
import { ObjectId, type Db } from 'mongodb';
import type { AppDoc } from '../shared/catalog/types';
import { catalogCollections } from '../shared/catalog/collections';

export const JOB_ACCOUNT_MISMATCH = 'JOB_ACCOUNT_MISMATCH';

function mismatch(what: string, accountId: string): UnrecoverableError {
  return new UnrecoverableError(`${JOB_ACCOUNT_MISMATCH}: ${what} is not of account ${accountId}`);
}

/** The app `appId` of account `accountId` (and of `pkg` when given), or a permanent failure. */
export async function appOfAccount(
  db: Db,
  accountId: string,
  appId: string,
  pkg?: string,
): Promise<AppDoc> {
  if (!ObjectId.isValid(appId) || appId.length !== 24) throw mismatch(`app ${appId}`, accountId);
  const app = await catalogCollections(db).apps.findOne({ _id: new ObjectId(appId) });
  if (!app || app.accountId !== accountId || (pkg !== undefined && app.package !== pkg)) {
    throw mismatch(`app ${appId}${pkg === undefined ? '' : ` (${pkg})`}`, accountId);
  }
  return app;
}

/** Refuses an upload that is missing or was made by another account. */
export function uploadOfAccount(
  upload: { readonly accountId: string } | null,
  uploadId: string,
  accountId: string,
): void {
  if (upload?.accountId !== accountId) throw mismatch(`upload ${uploadId}`, accountId);
}
