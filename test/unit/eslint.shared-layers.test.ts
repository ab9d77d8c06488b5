/**
 * The layering inside shared/ is a lint error (eslint.shared-layers.js): in a tiny shared/ tree
 * written for each case, an import of a folder that imports the importer back (directly, or
 * through a third folder, or through a file at the top of shared/) is refused on both sides; a
 * tree whose folders only import downwards passes; a folder holding a package.json may not import
 * outside itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sharedLayers = require('../../eslint.shared-layers.js') as Linter.Config[];

/** Writes `files` (path under the tree -> source) into a fresh folder; returns its path. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-layers-'));
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), source);
  }
  return root;
}

/** Lints every file of the tree; returns `file: rule` for each error. */
function errorsIn(files: Record<string, string>): string[] {
  const root = tree(files);
  const linter = new Linter({ cwd: root });
  const config: Linter.Config[] = [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    ...sharedLayers,
  ];
  return Object.entries(files)
    .filter(([file]) => file.endsWith('.ts'))
    .flatMap(([file, source]) =>
      linter
        .verify(source, config, path.join(root, file))
        .map((m) => `${file}: ${m.ruleId ?? 'parse'}`),
    );
}

const LOOP = 'shared-layers/no-folder-loop';
const SELF = 'shared-layers/self-contained';

test('two folders importing each other: both imports are refused', () => {
  const errors = errorsIn({
    'shared/crypto/reseal.ts': "import { accounts } from '../accounts/service';\n",
    'shared/accounts/service.ts':
      "import { seal } from '../crypto/seal';\nexport const accounts = 1;\n",
    'shared/crypto/seal.ts': 'export const seal = 1;\n',
  });
  expect(errors.sort()).toEqual([
    `shared/accounts/service.ts: ${LOOP}`,
    `shared/crypto/reseal.ts: ${LOOP}`,
  ]);
});

test('a loop through a third folder is refused on each of its imports', () => {
  const errors = errorsIn({
    'shared/storage/indexes.ts': "export * from '../devices/store';\n",
    'shared/devices/store.ts': "import '../rollouts/bucket';\nexport const x = 1;\n",
    'shared/rollouts/bucket.ts': "const redis = require('../storage/redis');\n",
    'shared/storage/redis.ts': 'export const redis = 1;\n',
  });
  expect(errors.sort()).toEqual([
    `shared/devices/store.ts: ${LOOP}`,
    `shared/rollouts/bucket.ts: ${LOOP}`,
    `shared/storage/indexes.ts: ${LOOP}`,
  ]);
});

test('a file at the top of shared/ is a folder of its own', () => {
  const errors = errorsIn({
    'shared/log.ts': "import type { LogLevel } from './config';\n",
    'shared/config.ts':
      "import { parse } from './storage/redis-url';\nexport type LogLevel = 'info';\n",
    'shared/storage/redis-url.ts': "import { log } from '../log';\nexport const parse = log;\n",
  });
  expect(errors.sort()).toEqual([
    `shared/config.ts: ${LOOP}`,
    `shared/log.ts: ${LOOP}`,
    `shared/storage/redis-url.ts: ${LOOP}`,
  ]);
});

test('folders that import only downwards pass, and imports inside a folder are free', () => {
  const errors = errorsIn({
    'shared/errors.ts': 'export class AppError extends Error {}\n',
    'shared/storage/redis.ts':
      "import { AppError } from '../errors';\nexport const r = AppError;\n",
    'shared/storage/mongo.ts': "import { r } from './redis';\nexport const m = r;\n",
    'shared/accounts/service.ts': "import { m } from '../storage/mongo';\nexport const a = m;\n",
    'shared/key-rotation/reseal.ts':
      "import { a } from '../accounts/service';\nimport '../storage/redis';\n",
    'shared/indexes.ts': "export { a } from './accounts/service';\n",
  });
  expect(errors).toEqual([]);
});

test('a folder with a package.json imports nothing outside itself', () => {
  const errors = errorsIn({
    'shared/errors.ts': 'export class AppError extends Error {}\n',
    'shared/apk/package.json': '{"name": "@apkrelay/apk", "private": true}\n',
    'shared/apk/index.ts': "export * from './zip/read';\n",
    'shared/apk/zip/read.ts':
      "import { AppError } from '../../errors';\nimport fs from 'node:fs';\n",
    'shared/apk/issues.ts': "import { x } from './zip/read';\n",
  });
  expect(errors).toEqual([`shared/apk/zip/read.ts: ${SELF}`]);
});
