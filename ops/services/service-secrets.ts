/**
 * Passwords of the embedded services, generated once into `DATA_DIR/secrets/<name>.password`
 * (mode 0600) and reused by every process sharing the DATA_DIR. They reach the services through
 * a 0600 config file (Redis) or the environment (FerretDB), never a command line that any local
 * user can read in `ps`, and they are never logged.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export type ServiceName = 'redis' | 'mongo' | 'postgresql';

export async function servicePassword(dataDir: string, name: ServiceName): Promise<string> {
  const dir = path.join(dataDir, 'secrets');
  const file = path.join(dir, `${name}.password`);
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (!/^[0-9a-f]{64}$/.test(existing)) throw new Error(`${file} does not hold a password`);
    return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Hex: safe in a URL and in a Redis config line without quoting.
  const password = randomBytes(32).toString('hex');
  try {
    await writeFile(file, password + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return servicePassword(dataDir, name);
    throw err;
  }
  return password;
}

/** A URL with its password replaced, for anything that prints or logs a service URL. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = 'redacted';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//[redacted]@');
  }
}
