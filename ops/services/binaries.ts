/**
 * Finds the binaries of the embedded services, installing them when this process may (root with
 * apt-get for Redis and PostgreSQL; Go for FerretDB), and otherwise failing with exactly what to
 * install.
 */
import { execFile as execFileCb } from 'node:child_process';
import { access, constants, cp, mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { silentSteps, type Steps } from './steps';

const execFile = promisify(execFileCb);
export const FERRETDB_VERSION = 'v1.24.2';
const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';

export type MongoKind = 'mongod' | 'ferretdb';

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function which(name: string, searchPath: string): Promise<string | undefined> {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir && (await isExecutable(path.join(dir, name)))) return path.join(dir, name);
  }
  return undefined;
}

async function canInstallWithApt(searchPath: string): Promise<boolean> {
  return process.getuid?.() === 0 && (await which('apt-get', searchPath)) !== undefined;
}

async function aptInstall(packages: readonly string[]): Promise<void> {
  const apt = ['DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  const install = [...apt, 'install', '-y', '--no-install-recommends', ...packages];
  try {
    await execFile('env', install);
  } catch {
    // The package lists may be missing or stale on a fresh machine.
    await execFile('env', [...apt, 'update']);
    await execFile('env', install);
  }
}

const orNone = (bin: string | undefined) => bin ?? 'not installed';

export async function ensureRedisServer(
  searchPath: string,
  steps: Steps = silentSteps,
): Promise<string> {
  const look = () => which('redis-server', searchPath);
  const found = await steps.run('looking for redis-server', look, orNone);
  if (found) return found;
  if (!(await canInstallWithApt(searchPath))) {
    throw new Error(
      'redis-server is not installed. Install it (Debian/Ubuntu: `sudo apt-get install redis-server`) ' +
        'or set REDIS_URL to an existing Redis.',
    );
  }
  await steps.run('installing redis-server (apt)', () => aptInstall(['redis-server']));
  const installed = await which('redis-server', searchPath);
  if (!installed) throw new Error('apt-get installed redis-server but it is not on PATH');
  return installed;
}

/** Debian's PostgreSQL 15 (bookworm's): FerretDB v1.24's PostgreSQL backend runs on it. */
export const POSTGRESQL_BIN_DIR = '/usr/lib/postgresql/15/bin';
const POSTGRESQL_PACKAGE = 'postgresql-15';

/** The directory holding `postgres` and `initdb`, installing Debian's package when missing. */
export async function ensurePostgresServer(
  searchPath: string,
  steps: Steps = silentSteps,
): Promise<string> {
  const present = async () =>
    (await isExecutable(path.join(POSTGRESQL_BIN_DIR, 'postgres'))) &&
    (await isExecutable(path.join(POSTGRESQL_BIN_DIR, 'initdb')));
  const there = (yes: boolean) => (yes ? POSTGRESQL_BIN_DIR : 'not installed');
  if (await steps.run('looking for PostgreSQL 15', present, there)) return POSTGRESQL_BIN_DIR;
  if (!(await canInstallWithApt(searchPath))) {
    throw new Error(
      `PostgreSQL 15 is not installed (${POSTGRESQL_BIN_DIR}). Install it (Debian/Ubuntu: ` +
        `\`sudo apt-get install ${POSTGRESQL_PACKAGE}\`), or set EMBEDDED_MONGO_BACKEND=sqlite, ` +
        'or set MONGO_URL.',
    );
  }
  await steps.run(`installing ${POSTGRESQL_PACKAGE} (apt)`, () => aptInstall([POSTGRESQL_PACKAGE]));
  if (!(await present()))
    throw new Error(
      `apt-get installed ${POSTGRESQL_PACKAGE} but ${POSTGRESQL_BIN_DIR} lacks postgres or initdb`,
    );
  return POSTGRESQL_BIN_DIR;
}

async function goBinDir(searchPath: string): Promise<string | undefined> {
  if (!(await which('go', searchPath))) return undefined;
  const { stdout } = await execFile('go', ['env', 'GOBIN', 'GOPATH']);
  const [gobin, gopath] = stdout.split('\n');
  return gobin?.trim() || path.join(gopath?.trim() || path.join(os.homedir(), 'go'), 'bin');
}

/** `mongod` when on PATH, else FerretDB (installed with Go when missing). */
export async function ensureMongoServer(
  searchPath: string,
  steps: Steps = silentSteps,
): Promise<{ kind: MongoKind; bin: string }> {
  const look = () => findMongoServer(searchPath);
  const describe = (found: { kind: MongoKind; bin: string } | undefined) =>
    found ? `${found.kind} ${found.bin}` : 'not installed';
  const found = await steps.run('looking for a MongoDB-protocol server', look, describe);
  if (found) return found;
  const binDir = await goBinDir(searchPath);
  if (!binDir) {
    throw new Error(
      'No MongoDB-protocol server found. Install mongod, or Go (`sudo apt-get install golang`) so ' +
        `FerretDB ${FERRETDB_VERSION} can be built, or set MONGO_URL.`,
    );
  }
  const label = ferretBuildLabel(os.availableParallelism());
  return { kind: 'ferretdb', bin: await steps.run(label, () => buildFerretDb(binDir)) };
}

/**
 * The build step's label with a rough duration: about 4 core-minutes (2 minutes measured on 2
 * cores), never less than a minute.
 */
export function ferretBuildLabel(cores: number): string {
  const minutes = Math.max(1, Math.round(4 / Math.max(1, cores)));
  const version = FERRETDB_VERSION.replace(/^v/, '');
  return (
    `building FerretDB ${version} with Go, about ${minutes} minute${minutes === 1 ? '' : 's'} ` +
    `on ${cores} core${cores === 1 ? '' : 's'}`
  );
}

/** `mongod` on PATH, else a FerretDB binary on PATH or in Go's bin directories; else none. */
async function findMongoServer(
  searchPath: string,
): Promise<{ kind: MongoKind; bin: string } | undefined> {
  const mongod = await which('mongod', searchPath);
  if (mongod) return { kind: 'mongod', bin: mongod };
  const onPath = await which('ferretdb', searchPath);
  if (onPath) return { kind: 'ferretdb', bin: onPath };
  const binDir = await goBinDir(searchPath);
  const candidates = [binDir, path.join(os.homedir(), 'go', 'bin')].filter(
    (d): d is string => d !== undefined,
  );
  for (const dir of candidates) {
    const bin = path.join(dir, 'ferretdb');
    if (await isExecutable(bin)) return { kind: 'ferretdb', bin };
  }
  return undefined;
}

/**
 * Builds FerretDB from its module source. `go install …@v1.24.2` yields a binary that panics at
 * start: the module zip lacks build/version/version.txt, which FerretDB's own builds generate.
 * So the source is copied, the version file written, and the command built in place.
 */
async function buildFerretDb(binDir: string): Promise<string> {
  const spec = `${FERRETDB_MODULE}@${FERRETDB_VERSION}`;
  const { stdout } = await execFile('go', ['mod', 'download', '-json', spec], {
    maxBuffer: 16 << 20,
  });
  const moduleDir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  if (!moduleDir) throw new Error(`go mod download ${spec} did not report a source directory`);
  const work = await mkdtemp(path.join(os.tmpdir(), 'ferretdb-build-'));
  try {
    await cp(moduleDir, work, { recursive: true });
    await execFile('chmod', ['-R', 'u+w', work]);
    await writeFile(path.join(work, 'build/version/version.txt'), `${FERRETDB_VERSION}\n`);
    const bin = path.join(binDir, 'ferretdb');
    await execFile('go', ['build', '-o', bin, './cmd/ferretdb'], {
      cwd: work,
      maxBuffer: 16 << 20,
    });
    await chmod(bin, 0o755);
    return bin;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
