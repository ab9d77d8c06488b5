/**
 * The folder boundaries are lint errors (eslint.boundaries.js): a device-client file importing the
 * server's config, a shared file importing the API, a worker importing the API, a protocol file
 * (device-client/protocol/) importing anything but its own folder (and pako, for the patch formats
 * of protocol/delta/) are each refused; the imports the layering allows pass.
 */
import path from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const boundaries = require('../../eslint.boundaries.js') as Linter.Config[];
const root = path.resolve(__dirname, '../..');

function errorsOf(file: string, source: string): string[] {
  const linter = new Linter({ cwd: root });
  const config: Linter.Config[] = [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    ...boundaries,
  ];
  return linter
    .verify(source, config, path.join(root, file))
    .map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

test.each([
  ['device-client/core/client.ts', "import { loadConfig } from '../../shared/config';"],
  ['device-client/node/transport.ts', "import type { Route } from '../../api/route-table';"],
  ['shared/devices/seats.ts', "import { sendText } from '../../api/text-reply';"],
  ['shared/config.ts', "import { startApi } from '../api/main';"],
  ['shared/backup/archive.ts', "import { ensureServices } from '../../ops/services/embedded';"],
  ['workers/backup/backup-processor.ts', "import { allRoutes } from '../../api/routes';"],
  ['api/main.ts', "import { startWorkers } from '../workers/main';"],
  ['device-client/protocol/signed-notice.ts', "import type { Crypto } from '../core/ports';"],
  ['device-client/protocol/signed-notice.ts', "import { createHash } from 'node:crypto';"],
  ['device-client/protocol/pushlink-lines.ts', "import { AppError } from '../../shared/errors';"],
  [
    'device-client/protocol/canonical-json.ts',
    "import stringify from 'fast-json-stable-stringify';",
  ],
  ['device-client/protocol/canonical-json.ts', "import { Deflate } from 'pako';"],
  ['device-client/protocol/delta/df-old.ts', "import { createInflateRaw } from 'node:zlib';"],
  ['device-client/protocol/delta/df-old.ts', "import type { Scratch } from '../../core/ports';"],
])('%s may not: %s', (file, source) => {
  const errors = errorsOf(file, source);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/^no-restricted-imports: /);
});

test.each([
  ['device-client/core/client.ts', "import { parseSse } from './sse-parser';"],
  ['shared/devices/seats.ts', "import { AppError } from '../errors';"],
  ['workers/backup/backup-processor.ts', "import { loadConfig } from '../../shared/config';"],
  ['api/main.ts', "import { loadConfig } from '../shared/config';"],
  ['ops/cli/main.ts', "import { startApi } from '../../api/main';"],
  ['device-client/protocol/signed-notice.ts', "import { canonicalJson } from './canonical-json';"],
  ['device-client/protocol/delta/df-old.ts', "import { Inflate } from 'pako';"],
  [
    'device-client/core/signed-events.ts',
    "import { signedBytes } from '../protocol/signed-notice';",
  ],
  [
    'shared/devices/push-signing.ts',
    "import { signedBytes } from '../../device-client/protocol/signed-notice';",
  ],
])('%s may: %s', (file, source) => {
  expect(errorsOf(file, source)).toEqual([]);
});
