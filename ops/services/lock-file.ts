/** A per-DATA_DIR lock between the processes that start or reuse the embedded services. */
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './child';

/** A lock file holding the owner's pid; a lock left by a dead process is taken over. */
export async function lock(file: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    // Written aside then hard-linked: the lock appears atomically with its owner's pid inside.
    const claim = `${file}.${process.pid}`;
    await writeFile(claim, String(process.pid));
    try {
      await link(claim, file);
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await readFile(file, 'utf8').catch(() => ''));
      if (!Number.isInteger(owner) || owner <= 0 || !isAlive(owner)) {
        await rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${file} (held by ${owner})`, { cause: err });
      await sleep(100);
    } finally {
      await rm(claim, { force: true });
    }
  }
}
