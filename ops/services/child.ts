/** Spawning a service process, waiting for it to answer, and stopping it with a deadline. */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { processEnv } from '../../shared/config';

/**
 * A port to listen on later, chosen below the kernel's ephemeral range. A port the kernel hands
 * out (listen on 0) is also one it hands to outgoing connections: on a busy machine one of them
 * can take it between this check and the real listen (EADDRINUSE). Below the range only another
 * listener can, and a random pick among thousands makes that unlikely. Where the range cannot be
 * read, the kernel's pick is the fallback.
 */
export async function freePort(): Promise<number> {
  const below = await ephemeralLow();
  if (below !== null && below > PORT_FLOOR + 1_000) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const port = PORT_FLOOR + Math.floor(Math.random() * (below - PORT_FLOOR));
      if (!handedOut.includes(port) && (await canListen(port))) return handOut(port);
    }
  }
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await kernelPort();
    if (!handedOut.includes(port)) return handOut(port);
  }
  return handOut(await kernelPort());
}

/**
 * The ports this process handed out lately: none is free-to-listen-on-yet twice. A caller that
 * asks for several before listening on any (PORT, WEB_PORT, PUSH_PORT) gets distinct ones; a
 * random pick repeated one about once in 6,000 such starts.
 */
const handedOut: number[] = [];
const REMEMBERED_PORTS = 256;

function handOut(port: number): number {
  handedOut.push(port);
  if (handedOut.length > REMEMBERED_PORTS) handedOut.shift();
  return port;
}

/** Lowest port freePort picks: above the registered well-known services most machines run. */
const PORT_FLOOR = 15_000;

async function ephemeralLow(): Promise<number | null> {
  try {
    const text = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
    const low = Number(text.trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : null;
  } catch {
    return null;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** An unprivileged user a service runs as when we are root (PostgreSQL refuses root). */
export interface ServiceUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/**
 * Starts a service in its own process group (a terminal's Ctrl-C reaches only our supervisor,
 * which stops services last), writing straight to its log file so it never depends on our pipes.
 * `env` adds to our environment (secrets go there, not on the command line that `ps` shows).
 */
export function spawnService(
  bin: string,
  args: readonly string[],
  logFile: string,
  env: Record<string, string> = {},
  as?: ServiceUser,
): ChildProcess {
  const fd = openSync(logFile, 'a', 0o600);
  try {
    const child = spawn(bin, args, {
      stdio: ['ignore', fd, fd],
      detached: true,
      env: { ...processEnv(), ...env },
      ...(as ? { uid: as.uid, gid: as.gid } : {}),
    });
    child.unref();
    return child;
  } finally {
    closeSync(fd);
  }
}

/** A loopback TCP port, or the path of a unix socket. */
export function portAnswers(port: number | string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(typeof port === 'string' ? { path: port } : { host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitForPort(
  port: number | string,
  child: ChildProcess | undefined,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) {
      throw new Error(`${what} exited with code ${child.exitCode} before accepting connections`);
    }
    if (await portAnswers(port)) return;
    await sleep(100);
  }
  throw new Error(`${what} did not accept connections on ${port} within ${timeoutMs} ms`);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends `signal` to `pid` if it is still there; false when it was already gone. */
export function signalPid(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * `signal` (SIGTERM; PostgreSQL's fast shutdown is SIGINT), then SIGKILL after `graceMs`;
 * resolves once the process is gone.
 */
export async function stopPid(
  pid: number,
  graceMs: number,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (!isAlive(pid) || !signalPid(pid, signal)) return;
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(pid)) {
    if (!signalPid(pid, 'SIGKILL')) return;
    while (isAlive(pid)) await sleep(20);
  }
}
