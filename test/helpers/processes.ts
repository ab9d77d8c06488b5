/** Process-tree helpers for end-to-end tests (Linux /proc). */
import { execFile as execFileCb } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

export const execFile = promisify(execFileCb);

/** Every live descendant of `pid`. */
export async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid ... — comm may contain spaces, so split after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(ppid)) continue;
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const child of parents.get(p) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The environment of a child process without the service URLs, as on a fresh machine. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['REDIS_URL', 'MONGO_URL', 'MASTER_KEY', 'TLS_CERT', 'TLS_KEY', 'TLS']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

/** Environment for a child apkrelay process sharing a test stack's services, database and keys. */
export function stackEnv(
  stack: {
    redisUrl: string;
    mongoUrl: string;
    database: string;
    prefix: string;
    masterKey: Buffer;
    dataDir: string;
  },
  extra: Record<string, string>,
): NodeJS.ProcessEnv {
  return cleanEnv({
    REDIS_URL: stack.redisUrl,
    MONGO_URL: `${stack.mongoUrl}/${stack.database}`,
    QUEUE_PREFIX: stack.prefix,
    MASTER_KEY: stack.masterKey.toString('base64'),
    DATA_DIR: stack.dataDir,
    LOG_LEVEL: 'warn',
    ...extra,
  });
}
