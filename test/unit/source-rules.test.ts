/** House rules that hold for all product code (not tests). */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const PRODUCT_DIRS = ['api', 'workers', 'shared', 'device-client', 'ops'];

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return sources(full);
      return Promise.resolve(/\.ts$/.test(e.name) ? [full] : []);
    }),
  );
  return nested.flat();
}

test('no product file reads process.env except shared/config.ts', async () => {
  const files = (await Promise.all(PRODUCT_DIRS.map((d) => sources(path.join(root, d))))).flat();
  expect(files.length).toBeGreaterThan(10);
  const offenders: string[] = [];
  for (const file of files) {
    if (path.relative(root, file) === path.join('shared', 'config.ts')) continue;
    if (/process\.env\b/.test(await readFile(file, 'utf8')))
      offenders.push(path.relative(root, file));
  }
  expect(offenders).toEqual([]);
});
