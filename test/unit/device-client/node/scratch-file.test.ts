/**
 * The Node scratch file for an ARDELTA2 patch's dfOld: what is appended is read back by position,
 * the file is private to its owner (0600) and `discard` deletes it, also when nothing was written.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scratchFiles } from '../../../../device-client/node/scratch-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'apkrelay-scratch-test-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

test('appended bytes are read back by position; discard deletes the file', async () => {
  const scratch = scratchFiles(path.join(dir, 'inner'))();
  await scratch.append(Buffer.from('hello '));
  await scratch.append(Buffer.from('world'));
  const file = await scratch.finish();
  expect(file.size).toBe(11);
  expect(Buffer.from(await file.read(6, 5)).toString()).toBe('world');
  expect(Buffer.from(await file.read(0, 11)).toString()).toBe('hello world');
  await expect(file.read(8, 5)).rejects.toThrow(/short read at 8/);
  const [name] = await readdir(path.join(dir, 'inner'));
  expect(name).toMatch(/^dfold-.*\.tmp$/);
  expect((await stat(path.join(dir, 'inner', name!))).mode & 0o777).toBe(0o600);
  await scratch.discard();
  await scratch.discard();
  expect(await readdir(path.join(dir, 'inner'))).toEqual([]);
});

test('discard before any write: nothing to delete, no error', async () => {
  await scratchFiles(dir)().discard();
  expect(await readdir(dir)).toEqual([]);
});
