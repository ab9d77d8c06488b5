/**
 * Holding a file that came before its key: the bytes come back whole and in order from memory or
 * from the spool, the spool file never has a name in its folder, and the disk budget is taken and
 * given back exactly. Literal inputs, a real temporary folder.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { AppError } from '../../../../shared/errors';
import { holdBeforeKey, spoolBudget, sweepSpool } from '../../../../api/uploads/pre-auth-hold';
import { writeFile } from 'node:fs/promises';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-hold-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const source = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)));

test('spoolBudget: takes up to its bound, refuses past it, gives back', () => {
  const budget = spoolBudget(10);
  expect([budget.take(6), budget.take(5), budget.take(4)]).toEqual([true, false, true]);
  budget.give(6);
  expect([budget.take(6), budget.take(1)]).toEqual([true, false]);
});

test('a file within the memory bound: held in memory, nothing in the spool folder', async () => {
  const held = await holdBeforeKey(source('ab', 'cd'), {
    memoryBytes: 4,
    spoolDir: path.join(dir, 'spool'),
    budget: spoolBudget(0),
  });
  expect([held.size, await text(held.open())]).toEqual([4, 'abcd']);
  expect(await readdir(dir)).toEqual([]);
  await held.discard();
});

test('past the memory bound: spooled, read back whole from the start, never named', async () => {
  const budget = spoolBudget(10);
  const spoolDir = path.join(dir, 'spool');
  const held = await holdBeforeKey(source('abc', 'def', 'ghij'), {
    memoryBytes: 4,
    spoolDir,
    budget,
  });
  expect([held.size, await text(held.open())]).toEqual([10, 'abcdefghij']);
  expect(await readdir(spoolDir)).toEqual([]);
  expect(budget.take(1)).toBe(false); // all 10 bytes are on disk
  await held.discard();
  await held.discard();
  expect(budget.take(10)).toBe(true);
});

test('past the budget: refused with UPLOAD_SPOOL_FULL, the budget given back', async () => {
  const budget = spoolBudget(5);
  const holding = holdBeforeKey(source('ab', 'cd', 'ef', 'gh'), {
    memoryBytes: 2,
    spoolDir: dir,
    budget,
  });
  await expect(holding).rejects.toEqual(expect.any(AppError));
  await expect(holding).rejects.toMatchObject({ code: 'UPLOAD_SPOOL_FULL' });
  expect(budget.take(5)).toBe(true);
});

test('a source that fails: rejected, the spool closed and the budget given back', async () => {
  const budget = spoolBudget(100);
  const failing = new Readable({ read() {} });
  const holding = holdBeforeKey(failing, { memoryBytes: 1, spoolDir: dir, budget });
  failing.push(Buffer.from('abcdef'));
  setImmediate(() => failing.destroy(new Error('cut')));
  await expect(holding).rejects.toThrow('cut');
  expect(budget.take(100)).toBe(true);
});

test('sweepSpool removes named spool files and nothing else', async () => {
  await writeFile(path.join(dir, '0a1b.spool'), 'x');
  await writeFile(path.join(dir, 'keep.txt'), 'y');
  expect(await sweepSpool(dir)).toBe(1);
  expect(await readdir(dir)).toEqual(['keep.txt']);
  expect(await sweepSpool(path.join(dir, 'missing'))).toBe(0);
});
