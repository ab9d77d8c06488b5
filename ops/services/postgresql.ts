/**
 * The embedded FerretDB's default storage: a PostgreSQL 15 cluster of its own under
 * `DATA_DIR/postgresql` (Debian's binaries, see binaries.ts).
 *
 * - It listens on no TCP port at all, only on a unix socket in `DATA_DIR/postgresql` (0700), and
 *   every connection must give the role `apkrelay`'s password, generated into
 *   `DATA_DIR/secrets/postgresql.password` (scram-sha-256; TCP is rejected in pg_hba.conf too).
 *   The password reaches initdb through a 0600 file removed after it, and FerretDB through its
 *   environment, never a command line.
 * - PostgreSQL refuses to run as root. Started as root, the cluster belongs to the system user
 *   `apkrelay-pg` (created once, no login, no home), which runs initdb and postgres. For it to
 *   reach its directory, DATA_DIR is group-owned by that user's own group with mode 0710: search
 *   only, no listing; everything else in DATA_DIR stays 0700/0600 and root's (data-dir.ts keeps
 *   exactly this exception). Every parent of DATA_DIR must be searchable by that user.
 * - It stops on SIGINT (PostgreSQL's "fast" shutdown: clients are disconnected, data is flushed);
 *   SIGTERM would wait for FerretDB's pooled connections to close.
 */
import { execFile as execFileCb } from 'node:child_process';
import { access, chown, chmod, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensurePostgresServer } from './binaries';
import { silentSteps, type Steps } from './steps';
import { spawnService, waitForPort, type ServiceUser } from './child';
import { servicePassword } from './service-secrets';

const execFile = promisify(execFileCb);
export const POSTGRESQL_SYSTEM_USER = 'apkrelay-pg';
const ROLE = 'apkrelay';
const DATABASE = 'postgres';
/** Only names the socket file (`.s.PGSQL.5432`) in our private directory; nothing listens on TCP. */
const SOCKET_PORT = 5432;

export interface PostgresRecord {
  pid: number;
  port: number;
  /** The unix socket the record's liveness is checked on. */
  socket: string;
  url: string;
  auth: true;
}

export const postgresDir = (dataDir: string) => path.join(dataDir, 'postgresql');

/** FerretDB's `--postgresql-url`, with the password: for its environment only. */
export async function ferretPostgresUrl(dataDir: string): Promise<string> {
  const password = await servicePassword(dataDir, 'postgresql');
  const host = encodeURIComponent(postgresDir(dataDir));
  return `postgres://${ROLE}:${password}@/${DATABASE}?host=${host}`;
}

/** Initialises the cluster on first use, starts `postgres` and waits for its socket. */
export async function startPostgres(
  dataDir: string,
  searchPath: string,
  steps: Steps = silentSteps,
): Promise<PostgresRecord> {
  const binDir = await ensurePostgresServer(searchPath, steps);
  const user = await systemUser();
  const dir = postgresDir(dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (user) await openToSystemUser(dataDir, dir, user);
  const data = path.join(dir, 'data');
  if (!(await hasPostgresCluster(dataDir)))
    await steps.run('creating the PostgreSQL cluster (initdb)', () =>
      initdb(binDir, dataDir, dir, user),
    );
  const socket = path.join(dir, `.s.PGSQL.${SOCKET_PORT}`);
  const args = [
    ...['-D', data, '-k', dir, '-p', String(SOCKET_PORT)],
    ...['-c', 'listen_addresses=', '-c', 'unix_socket_permissions=0700'],
  ];
  const child = spawnService(
    path.join(binDir, 'postgres'),
    args,
    path.join(dir, 'postgresql.log'),
    {},
    user,
  );
  await steps.run('starting PostgreSQL 15', () => waitForPort(socket, child, 60_000, 'postgres'));
  const url = `postgresql://${ROLE}@/${DATABASE}?host=${encodeURIComponent(dir)}`;
  return { pid: child.pid!, port: SOCKET_PORT, socket, url, auth: true };
}

/** initdb into `data.init`, renamed `data` once complete: a cut initdb is redone, never reused. */
async function initdb(
  binDir: string,
  dataDir: string,
  dir: string,
  user: ServiceUser | undefined,
): Promise<void> {
  const target = path.join(dir, 'data.init');
  const pwfile = path.join(dir, 'initdb.pw');
  await rm(target, { recursive: true, force: true });
  await writeFile(pwfile, (await servicePassword(dataDir, 'postgresql')) + '\n', { mode: 0o600 });
  try {
    if (user) await chown(pwfile, user.uid, user.gid);
    const args = [
      ...['-D', target, `--username=${ROLE}`, `--pwfile=${pwfile}`],
      ...['--auth-local=scram-sha-256', '--auth-host=reject', '--encoding=UTF8', '--no-locale'],
    ];
    await execFile(path.join(binDir, 'initdb'), args, {
      cwd: dir,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`initdb of the embedded PostgreSQL failed: ${stderr.trim()}`, { cause: err });
  } finally {
    await rm(pwfile, { force: true });
  }
  await rename(target, path.join(dir, 'data'));
}

/** The system user to run as when we are root; created once (idempotent, race-safe). */
async function systemUser(): Promise<ServiceUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = async () => {
    const [uid, gid] = await Promise.all(
      ['-u', '-g'].map((o) => execFile('id', [o, POSTGRESQL_SYSTEM_USER]).then((r) => r.stdout)),
    );
    return { name: POSTGRESQL_SYSTEM_USER, uid: Number(uid), gid: Number(gid) };
  };
  try {
    return await lookup();
  } catch {
    const shell = (await exists('/usr/sbin/nologin')) ? '/usr/sbin/nologin' : '/bin/false';
    const args = ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent'];
    // A concurrent start may have created it meanwhile: the look-up below decides.
    await execFile('useradd', [...args, '--shell', shell, POSTGRESQL_SYSTEM_USER]).catch(() => {});
    return lookup();
  }
}

/** Gives the system user its directory and a way to it (see the header), then checks the way. */
async function openToSystemUser(dataDir: string, dir: string, user: ServiceUser): Promise<void> {
  await chown(dataDir, 0, user.gid);
  await chmod(dataDir, 0o710);
  await chown(dir, user.uid, user.gid);
  await chmod(dir, 0o700);
  try {
    await execFile('test', ['-w', dir, '-a', '-x', dir], { uid: user.uid, gid: user.gid });
  } catch (err) {
    throw new Error(
      `the embedded PostgreSQL runs as the system user ${user.name}, which cannot reach ${dir}: ` +
        'every parent directory of DATA_DIR must be searchable by others (chmod o+x), or set ' +
        'DATA_DIR elsewhere, or EMBEDDED_MONGO_BACKEND=sqlite',
      { cause: err },
    );
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Whether a DATA_DIR holds a PostgreSQL cluster already (initialised to completion). */
async function hasPostgresCluster(dataDir: string): Promise<boolean> {
  return exists(path.join(postgresDir(dataDir), 'data', 'PG_VERSION'));
}

/**
 * A DATA_DIR with FerretDB SQLite files and no PostgreSQL cluster is an existing SQLite install:
 * starting it on an empty PostgreSQL would hide its data.
 */
export async function refuseSqliteStore(dataDir: string): Promise<void> {
  if (await hasPostgresCluster(dataDir)) return;
  const dir = path.join(dataDir, 'ferretdb');
  const files = (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('.sqlite'));
  if (files.length === 0) return;
  throw new Error(
    `${dir} holds FerretDB's SQLite store (${files.join(', ')}) and the embedded store is now ` +
      'PostgreSQL: set EMBEDDED_MONGO_BACKEND=sqlite to keep using it, or move it to PostgreSQL ' +
      'through a backup and restore (docs/storage.md, "Moving from SQLite to PostgreSQL")',
  );
}
