/**
 * When each access key was last used (docs/keys.md, "Last use"): written at most once a minute per
 * key and process, off the request's path, to `access_key_uses` and never to the key's document,
 * which no request but its revocation rewrites: the default store rewrites whole documents
 * (shared/storage/claims.ts), and a last-use write racing a revocation used to undo it.
 */
import type { Db, ObjectId } from 'mongodb';
import { accountsCollections, type AccessKeyDoc, type AccessKeyUseDoc } from './collections';

const LAST_USE_EVERY_MS = 60_000;

export interface KeyUses {
  /** Records a use of `doc` now, unless this process wrote one for it within the minute. */
  note(doc: AccessKeyDoc): void;
  /** The account's last-use records (of `ids` only when given), by key id. */
  of(accountId: string, ids?: readonly ObjectId[]): Promise<Map<string, AccessKeyUseDoc>>;
}

export function createKeyUses(db: Db, now: () => Date): KeyUses {
  const uses = accountsCollections(db).accessKeyUses;
  const lastWritten = new Map<string, number>();
  return {
    note(doc) {
      const id = doc._id.toHexString();
      const at = now();
      if (at.getTime() - (lastWritten.get(id) ?? 0) < LAST_USE_EVERY_MS) return;
      lastWritten.set(id, at.getTime());
      // Best effort: a lost write (or two processes' first upserts at once) only makes it older.
      void uses
        .updateOne(
          { _id: doc._id },
          { $max: { lastUsedAt: at }, $setOnInsert: { accountId: doc.accountId } },
          { upsert: true },
        )
        .catch(() => undefined);
    },
    async of(accountId, ids) {
      const filter = ids ? { _id: { $in: [...ids] }, accountId } : { accountId };
      const found = await uses.find(filter).toArray();
      return new Map(found.map((u) => [u._id.toHexString(), u]));
    },
  };
}
