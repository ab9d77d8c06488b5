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

/** Repository-wide rule tests, which test no one source file. */
const UNMIRRORED = new Set(['source-rules.test.ts']);

/** `test/unit/X/Y[.aspect].test.ts` tests `X/Y.ts` (or `.js`, `.mjs`). */
async function mirroredSource(testFile: string): Promise<string | null> {
  const rel = path.relative(path.join(root, 'test', 'unit'), testFile);
  const stem = rel.replace(/\.test\.ts$/, '');
  const bases = [stem, stem.replace(/\.[^./]+$/, '')];
  for (const base of bases) {
    for (const ext of ['.ts', '.js', '.mjs']) {
      const candidate = path.join(root, base + ext);
      if (
        await readFile(candidate).then(
          () => true,
          () => false,
        )
      )
        return candidate;
    }
  }
  return null;
}

test('unit tests mirror the source file they test (test/unit/X/Y.test.ts for X/Y.ts)', async () => {
  const tests = (await sources(path.join(root, 'test', 'unit'))).filter((f) =>
    f.endsWith('.test.ts'),
  );
  expect(tests.length).toBeGreaterThan(40);
  const strays: string[] = [];
  for (const file of tests) {
    const rel = path.relative(path.join(root, 'test', 'unit'), file);
    if (!UNMIRRORED.has(rel) && (await mirroredSource(file)) === null) strays.push(rel);
  }
  expect(strays).toEqual([]);
  expect((tests.length - UNMIRRORED.size) / tests.length).toBeGreaterThanOrEqual(0.9);
});

/**
 * The storage workarounds sit behind the store modules, each saying once what it works around
 * (issue 23): at most this many product files name the embedded database's backend. The services
 * setup (ops/services/) and the config module may name it freely.
 */
const MAX_FILES_NAMING_BACKEND = 4;

test('at most 4 product files outside ops/services and config name FerretDB or its backends', async () => {
  const files = (await Promise.all(PRODUCT_DIRS.map((d) => sources(path.join(root, d))))).flat();
  expect(files.length).toBeGreaterThan(10);
  const named: string[] = [];
  for (const file of files) {
    const rel = path.relative(root, file);
    if (rel.startsWith(path.join('ops', 'services') + path.sep)) continue;
    if (rel === path.join('shared', 'config.ts')) continue;
    if (/ferret|sqlite|postgres/i.test(await readFile(file, 'utf8'))) named.push(rel);
  }
  if (named.length > MAX_FILES_NAMING_BACKEND) {
    throw new Error(
      `${named.length} files name the database backend, at most ${MAX_FILES_NAMING_BACKEND} may ` +
        `(say it behind the store modules, or give the reason in neutral words):\n` +
        named.sort().join('\n'),
    );
  }
});

/**
 * A feature in one place (issue 34): the top of `api/` holds only the HTTP plumbing every feature
 * uses, the top of `workers/` only the worker runtime; a feature's files sit in its own folder.
 * Written by hand: adding a file here is a decision, not a default.
 */
const PROCESS_TOPS: Record<string, string[]> = {
  api: [
    'app.ts',
    'audit-context.ts',
    'auth.ts',
    'body-parsers.ts',
    'close-after-reply.ts',
    'connections.ts',
    'deps.ts',
    'http-errors.ts',
    'main.ts',
    'owned-app.ts',
    'owner-route.ts',
    'request-log.ts',
    'request-validation.ts',
    'route-contract.ts',
    'route-table.ts',
    'server.ts',
    'text-reply.ts',
  ],
  workers: [
    'every.ts',
    'job-ownership.ts',
    'main.ts',
    'processor.ts',
    'queue-processors.ts',
    'runtime.ts',
    'store-watch.ts',
    'watchdog.ts',
  ],
};

test.each(Object.entries(PROCESS_TOPS))(
  'the top of %s/ holds only its plumbing; features sit in folders',
  async (folder, plumbing) => {
    const entries = await readdir(path.join(root, folder), { withFileTypes: true });
    const files = entries.filter((e) => e.isFile()).map((e) => e.name);
    expect(files).toContain('main.ts');
    expect(files.filter((f) => !plumbing.includes(f)).sort()).toEqual([]);
  },
);

test('a worker file is named *-processor.ts exactly when it is the processor of a queue', async () => {
  const files = await sources(path.join(root, 'workers'));
  const misnamed: string[] = [];
  for (const file of files) {
    const rel = path.relative(root, file);
    const isProcessor = /^\/\*\*\s*\n?\s*\*?\s*Processor of `/.test(await readFile(file, 'utf8'));
    const named = file.endsWith('-processor.ts');
    if (isProcessor !== named) misnamed.push(rel);
  }
  expect(files.length).toBeGreaterThan(10);
  expect(misnamed).toEqual([]);
});

/**
 * Errors come from the catalogue (shared/errors.ts): an `AppError` with a stable code, or one of
 * its subclasses. A plain `throw new Error(` stays only where it cannot reach a user nor a job as
 * it is (the rule is in docs/architecture.md#errors); this table lists them by hand, per file.
 * shared/apk/ has errors of its own (issue 34, item 3) and is not counted.
 */
const PLAIN_THROWS: Record<string, number> = {
  // Invariants: a guard or a caller's bug, never a user's input.
  'api/web/sessions.ts': 1,
  'api/audit-context.ts': 2,
  'api/uploads/legacy-upload.ts': 1,
  'workers/runtime.ts': 1,
  'shared/queues/producers.ts': 1,
  'shared/crypto/keys.ts': 3,
  'shared/crypto/segmented-aead.ts': 4,
  'shared/storage/blob-store.ts': 1,
  'shared/webhooks/address.ts': 1,
  'shared/backup/tar.ts': 1,
  'shared/devices/store.ts': 1,
  'api/downloads/offload-dir.ts': 1,
  // A late write after the reception ended: its caller has answered already.
  'api/uploads/pre-auth-hold.ts': 1,
  // Caught where they are thrown and turned into a configuration problem (ConfigError).
  'shared/storage/redis-url.ts': 3,
  'shared/config-reader.ts': 1,
};

/** Error classes outside the catalogue: RedisUnavailableError keeps ioredis's shape (its doc says why). */
const PLAIN_ERROR_CLASSES = new Set([path.join('shared', 'storage', 'redis.ts')]);

test('plain throw new Error( and Error classes stay where the table allows them', async () => {
  const files = (
    await Promise.all(['api', 'workers', 'shared'].map((d) => sources(path.join(root, d))))
  )
    .flat()
    .filter((f) => !path.relative(root, f).startsWith(path.join('shared', 'apk') + path.sep));
  expect(files.length).toBeGreaterThan(100);
  const throws: Record<string, number> = {};
  const classes: string[] = [];
  for (const file of files) {
    const rel = path.relative(root, file);
    const text = await readFile(file, 'utf8');
    const n = text.split('throw new Error(').length - 1;
    if (n > 0) throws[rel.split(path.sep).join('/')] = n;
    if (
      /class \w+ extends (Error|TypeError|RangeError)\b/.test(text) &&
      rel !== path.join('shared', 'errors.ts')
    ) {
      if (!PLAIN_ERROR_CLASSES.has(rel)) classes.push(rel);
    }
  }
  expect(throws).toEqual(PLAIN_THROWS);
  expect(classes).toEqual([]);
});
