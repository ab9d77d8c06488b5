/**
 * restrictDataDir: DATA_DIR is 0700 and nothing in it open to others, with one exception (issue
 * 21): DATA_DIR itself stays 0710 while `postgresql/` belongs to another user whose group
 * DATA_DIR has (the embedded PostgreSQL's system user, when apkrelay runs as root).
 */
import { chmod, chown, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { restrictDataDir } from '../../../../ops/services/data-dir';

const asRoot = process.getuid?.() === 0;
const OTHER_UID = 54_321;
const OTHER_GID = 54_322;
let dir: string;
const mode = async (p: string) => (await stat(p)).mode & 0o777;

// restrictDataDir sets the process's umask (its job); the jest worker gets its own back.
let umask: number;
beforeAll(() => {
  umask = process.umask(0o077);
  process.umask(umask);
});
afterAll(() => process.umask(umask));

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-data-dir-'));
  await chmod(dir, 0o755);
  await mkdir(path.join(dir, 'postgresql'), { mode: 0o755 });
  await mkdir(path.join(dir, 'redis'), { mode: 0o755 });
  await writeFile(path.join(dir, 'redis', 'dump.rdb'), 'x', { mode: 0o644 });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

test('without a foreign cluster: every directory 0700, every file without group/other bits', async () => {
  await restrictDataDir(dir);
  expect(await mode(dir)).toBe(0o700);
  expect(await mode(path.join(dir, 'postgresql'))).toBe(0o700);
  expect(await mode(path.join(dir, 'redis'))).toBe(0o700);
  expect(await mode(path.join(dir, 'redis', 'dump.rdb'))).toBe(0o600);
});

(asRoot ? describe : describe.skip)('as root (chown needs it)', () => {
  test('a cluster owned by another user whose group DATA_DIR has: DATA_DIR 0710, the rest 0700', async () => {
    await chown(path.join(dir, 'postgresql'), OTHER_UID, OTHER_GID);
    await chown(dir, 0, OTHER_GID);
    await chmod(dir, 0o750); // too open: group may list
    await restrictDataDir(dir);
    expect(await mode(dir)).toBe(0o710);
    expect(await mode(path.join(dir, 'postgresql'))).toBe(0o700);
    expect(await mode(path.join(dir, 'redis'))).toBe(0o700);
  });

  test('DATA_DIR of another group than the cluster: 0700, the exception does not apply', async () => {
    await chown(path.join(dir, 'postgresql'), OTHER_UID, OTHER_GID);
    await chown(dir, 0, OTHER_GID + 1);
    await chmod(dir, 0o710);
    await restrictDataDir(dir);
    expect(await mode(dir)).toBe(0o700);
  });

  test("a cluster owned by DATA_DIR's owner: 0700, the exception does not apply", async () => {
    await chown(path.join(dir, 'postgresql'), 0, OTHER_GID);
    await chown(dir, 0, OTHER_GID);
    await chmod(dir, 0o710);
    await restrictDataDir(dir);
    expect(await mode(dir)).toBe(0o700);
  });
});
