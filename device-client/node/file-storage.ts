/** The storage port on Node: one directory per installation; records are written atomically. */
import { createReadStream, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { appendFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Storage } from '../core/ports';

const SAFE = /^[A-Za-z0-9._-]+$/;

function name(key: string): string {
  if (!SAFE.test(key)) throw new Error(`bad storage name: ${key}`);
  return key;
}

export function fileStorage(dir: string): Storage {
  let made: Promise<unknown> | undefined;
  const ready = () => (made ??= mkdir(dir, { recursive: true }));
  const record = (key: string) => path.join(dir, `${name(key)}.json`);
  const file = (n: string) => path.join(dir, name(n));
  let seq = 0;
  return {
    async read(key) {
      try {
        const text = await readFile(record(key), 'utf8');
        return text === '' ? null : text;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async write(key, value) {
      await ready();
      const tmp = `${record(key)}.${process.pid}.${++seq}.tmp`;
      await writeFile(tmp, value);
      await rename(tmp, record(key));
    },
    writeSync(key, value) {
      mkdirSync(dir, { recursive: true });
      const tmp = `${record(key)}.${process.pid}.sync.tmp`;
      writeFileSync(tmp, value);
      renameSync(tmp, record(key));
    },
    async fileSize(n) {
      try {
        return (await stat(file(n))).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw err;
      }
    },
    async append(n, chunk) {
      await ready();
      await appendFile(file(n), chunk);
    },
    async removeFile(n) {
      await rm(file(n), { force: true });
    },
    async *readFile(n) {
      try {
        for await (const chunk of createReadStream(file(n))) yield chunk as Uint8Array;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    },
    location(n) {
      return pathToFileURL(file(n)).href;
    },
  };
}
