/**
 * `apkrelay services install` on a machine where everything is installed already (issue 33, a
 * first start that says what it is doing): the built CLI prints each step as it starts and as it
 * ends, with its elapsed time, on standard error; standard output keeps its answer (one JSON
 * object with `--json`). On this machine the MongoDB-protocol server is FerretDB (no mongod), on
 * PostgreSQL 15 as the default backend.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, execFile } from '../helpers/processes';

const root = path.resolve(__dirname, '../..');

test('services install prints its steps on stderr and its JSON answer on stdout', async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-services-install-'));
  try {
    const { stdout, stderr } = await execFile(
      process.execPath,
      ['dist/ops/cli/main.js', 'services', 'install', '--json'],
      { cwd: root, env: cleanEnv({ DATA_DIR: dataDir, EMBEDDED_MONGO_BACKEND: 'postgresql' }) },
    );
    const answer = JSON.parse(stdout) as {
      redis: string;
      mongo: { kind: string; bin: string };
      postgresql: string;
    };
    expect(answer.mongo.kind).toBe('ferretdb');
    expect(answer.postgresql).toBe('/usr/lib/postgresql/15/bin');
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const at = (text: string): unknown => expect.stringMatching(new RegExp(`^${escape(text)}$`));
    const timed = (text: string): unknown =>
      expect.stringMatching(new RegExp(`^${escape(text)} \\(\\d\\.\\d s\\)$`));
    expect(stderr.trimEnd().split('\n')).toEqual([
      at('apkrelay: looking for redis-server…'),
      timed(`apkrelay: looking for redis-server: ${answer.redis}`),
      at('apkrelay: looking for a MongoDB-protocol server…'),
      timed(`apkrelay: looking for a MongoDB-protocol server: ferretdb ${answer.mongo.bin}`),
      at('apkrelay: looking for PostgreSQL 15…'),
      timed('apkrelay: looking for PostgreSQL 15: /usr/lib/postgresql/15/bin'),
    ]);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
