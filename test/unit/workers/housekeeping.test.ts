import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { housekeepingProcessor } from '../../../workers/processors/housekeeping';
import { createLogger } from '../../../shared/log';

const ctx = {
  jobId: '1',
  attempt: 1,
  log: createLogger('silent'),
  signal: new AbortController().signal,
};

test('purges only staging files older than the threshold', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'staging-'));
  try {
    const now = Date.parse('2026-11-21T12:00:00Z');
    await writeFile(path.join(dir, 'old'), 'x');
    await writeFile(path.join(dir, 'fresh'), 'y');
    await utimes(
      path.join(dir, 'old'),
      new Date(now - 25 * 3600_000),
      new Date(now - 25 * 3600_000),
    );
    await utimes(path.join(dir, 'fresh'), new Date(now - 3600_000), new Date(now - 3600_000));
    const purge = housekeepingProcessor({ stagingDir: dir, now: () => now });
    await expect(
      purge({ task: 'purge-staging', olderThanMs: 24 * 3600_000 }, ctx),
    ).resolves.toEqual({
      removed: 1,
    });
    expect(await readdir(dir)).toEqual(['fresh']);
    // Idempotent: a second run finds nothing more to do.
    await expect(
      purge({ task: 'purge-staging', olderThanMs: 24 * 3600_000 }, ctx),
    ).resolves.toEqual({
      removed: 0,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a missing staging directory is not an error', async () => {
  const purge = housekeepingProcessor({ stagingDir: '/nonexistent/staging', now: () => 0 });
  await expect(purge({ task: 'purge-staging', olderThanMs: 0 }, ctx)).resolves.toEqual({
    removed: 0,
  });
});
