/**
 * A feature's collections by name, typed: the one shape of every `<feature>Collections(db)` in
 * shared/ (docs/architecture.md). At the bottom of shared/ beside errors.ts and log.ts: it knows no
 * feature (each names its collections and their document types, and owns its indexes), and
 * storage/ and crypto/ may both use it.
 */
import type { Collection, Db, Document } from 'mongodb';

export type Collections<Docs extends { [K in keyof Docs]: Document }> = {
  readonly [K in keyof Docs]: Collection<Docs[K]>;
};

/** `names` maps each key to its collection's name; `Docs` maps it to its document type. */
export function collectionsOf<Docs extends { [K in keyof Docs]: Document }>(
  db: Db,
  names: { readonly [K in keyof Docs]: string },
): Collections<Docs> {
  const collections = {} as Record<keyof Docs, unknown>;
  for (const key of Object.keys(names) as (keyof Docs)[]) {
    collections[key] = db.collection(names[key]);
  }
  return collections as Collections<Docs>;
}
