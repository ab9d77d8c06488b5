import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { resolveMasterKey } from '../../../../shared/crypto/master-key';
import { createLogger } from '../../../../shared/log';

test('without MASTER_KEY a key is generated once (mode 0600, loud warning) and reused', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mk-'));
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  try {
    const log = createLogger('info', {}, sink);
    const first = await resolveMasterKey(undefined, dir, log);
    expect(first).toHaveLength(32);
    const file = path.join(dir, 'master.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64').equals(first)).toBe(true);
    expect(lines.join('')).toMatch(/Production MUST set MASTER_KEY/);
    expect(lines.join('')).not.toContain(first.toString('base64'));
    const again = await resolveMasterKey(undefined, dir, log);
    expect(again.equals(first)).toBe(true);
    expect(lines).toHaveLength(1); // warned once, at generation
    const configured = Buffer.alloc(32, 9);
    expect((await resolveMasterKey(configured, dir, log)).equals(configured)).toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
