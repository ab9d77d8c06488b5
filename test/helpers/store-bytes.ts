/**
 * How many bytes the shared test MongoDB-protocol server holds on disk for one database, for
 * tests that check something was never stored. FerretDB on SQLite: the database's own files.
 * On PostgreSQL its files are named by number, so the cluster is asked: the size of the
 * database's schema (FerretDB keeps each database in a schema of that name), indexes and TOAST
 * included. Under MONGO_URL nothing is local: 0.
 */
import { execFile as execFileCb } from 'node:child_process';
import { access, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { POSTGRESQL_BIN_DIR } from '../../ops/services/binaries';
import { TEST_SERVICES_DIR } from './global-setup';

const execFile = promisify(execFileCb);

export async function databaseBytesOnDisk(database: string): Promise<number> {
  const cluster = path.join(TEST_SERVICES_DIR, 'postgresql');
  const onPostgres = await access(path.join(cluster, 'data')).then(
    () => true,
    () => false,
  );
  if (!process.env.MONGO_URL && onPostgres) return schemaBytes(cluster, database);
  return bytesUnder(TEST_SERVICES_DIR, database);
}

async function schemaBytes(cluster: string, schema: string): Promise<number> {
  const password = (
    await readFile(path.join(TEST_SERVICES_DIR, 'secrets/postgresql.password'), 'utf8')
  ).trim();
  const sql =
    'SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c ' +
    `JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${schema}' AND c.relkind = 'r'`;
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`unexpected database name ${schema}`);
  const { stdout } = await execFile(
    path.join(POSTGRESQL_BIN_DIR, 'psql'),
    ['-h', cluster, '-U', 'apkrelay', '-d', 'postgres', '-Atc', sql],
    { env: { ...process.env, PGPASSWORD: password } },
  );
  return Number(stdout.trim());
}

/** Bytes of the files under `dir` whose name contains `needle` (all files when none is given). */
export async function bytesUnder(dir: string, needle?: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile() || (needle !== undefined && !entry.name.includes(needle))) continue;
    total += await stat(path.join(entry.parentPath, entry.name)).then(
      (s) => s.size,
      () => 0,
    );
  }
  return total;
}
