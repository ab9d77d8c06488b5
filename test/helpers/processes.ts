/** Process-tree helpers for end-to-end tests (Linux /proc). */
import { execFile as execFileCb } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../ops/services/child';
import { eventually } from './eventually';
import { request } from './http';

export const execFile = promisify(execFileCb);

interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  /** One letter: R, S, D, Z (zombie)... */
  readonly state: string;
}

/** Every process in /proc with its parent and state. */
async function processTable(): Promise<ProcEntry[]> {
  const out: ProcEntry[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid ... — comm may contain spaces, so split after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === undefined || !Number.isInteger(Number(ppid))) continue;
    out.push({ pid: Number(name), ppid: Number(ppid), state });
  }
  return out;
}

const proc = (pid: number, file: string) =>
  readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => '');

/** Every live descendant of `pid`. */
export async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const p of await processTable())
    parents.set(p.ppid, [...(parents.get(p.ppid) ?? []), p.pid]);
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

/** The direct children of `pid` whose command line contains `command`. */
export async function childrenRunning(pid: number, command: string): Promise<number[]> {
  const out: number[] = [];
  for (const p of await processTable()) {
    if (p.ppid !== pid) continue;
    if ((await proc(p.pid, 'cmdline')).replace(/\0/g, ' ').includes(command)) out.push(p.pid);
  }
  return out;
}

/**
 * Live processes whose command line or environment mentions `text` (a DATA_DIR: the services name
 * it in their arguments, apkrelay's own processes in their environment). Zombies are gone already.
 */
export async function processesMentioning(text: string): Promise<number[]> {
  const out: number[] = [];
  for (const p of await processTable()) {
    if (p.pid === process.pid || p.state === 'Z') continue;
    const [cmdline, environ] = await Promise.all([proc(p.pid, 'cmdline'), proc(p.pid, 'environ')]);
    if (cmdline.includes(text) || environ.includes(text)) out.push(p.pid);
  }
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

/**
 * A fresh install as `npm start` sees it: an empty DATA_DIR, free ports for the three hosts and
 * no service URLs (embedded services, generated TLS certificate).
 */
export async function freshInstall(
  prefix: string,
  extra: Record<string, string> = {},
): Promise<{ dataDir: string; env: NodeJS.ProcessEnv; adminUrl: string }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const [port, webPort, pushPort] = [await freePort(), await freePort(), await freePort()];
  const env = cleanEnv({
    DATA_DIR: dataDir,
    PORT: String(port),
    WEB_PORT: String(webPort),
    PUSH_PORT: String(pushPort),
    LOG_LEVEL: 'warn',
    ...extra,
  });
  return { dataDir, env, adminUrl: `https://localhost:${port}` };
}

/** The service URL naming `database`, keeping its credentials and options (`authSource`). */
export function mongoUrlFor(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
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
    MONGO_URL: mongoUrlFor(stack.mongoUrl, stack.database),
    QUEUE_PREFIX: stack.prefix,
    MASTER_KEY: stack.masterKey.toString('base64'),
    DATA_DIR: stack.dataDir,
    LOG_LEVEL: 'warn',
    ...extra,
  });
}

/**
 * Waits until `npm start` is ready. Ready means both: /readyz answers 200 and the supervisor has
 * printed the URLs (the API child can answer /readyz a moment before the supervisor has heard
 * "ready" from both children and printed them).
 */
export async function waitStarted(
  server: ChildProcess,
  adminUrl: string,
  ca: () => Promise<string>,
  output: () => string,
  timeoutMs = 90_000,
): Promise<void> {
  const ready = async (): Promise<boolean> => {
    if (server.exitCode !== null) throw new Error(`npm start exited early:\n${output()}`);
    try {
      const reply = await request(`${adminUrl}/readyz`, { ca: await ca() });
      return reply.status === 200 && output().includes('apkrelay is running:');
    } catch {
      return false; // not listening yet, or the certificate not yet written
    }
  };
  await eventually('npm start to be ready', ready, { timeoutMs, intervalMs: 250 }).catch(
    (err: unknown) => {
      throw server.exitCode === null ? new Error(`${(err as Error).message}:\n${output()}`) : err;
    },
  );
}
