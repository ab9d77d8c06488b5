/**
 * A local Redis Cluster of Debian's redis-server for tests: 3 masters and 3 replicas on free
 * loopback ports (client and bus ports both chosen free), append-only files as the embedded
 * single instance, a password (requirepass, and masterauth for the replicas), joined by
 * `redis-cli --cluster create --cluster-replicas 1`. A node can be SIGKILLed (its replica is
 * then promoted by the cluster itself) and started again (it rejoins as a replica).
 */
import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'ioredis';
import { ensureRedisServer } from '../../ops/services/binaries';
import { freePort, isAlive, spawnService, stopPid, waitForPort } from '../../ops/services/child';
import { redisServerArgs } from '../../ops/services/embedded';
import { eventually } from './eventually';

const run = promisify(execFile);
const SEARCH_PATH = process.env.PATH ?? '/usr/bin:/bin';
/** A master is failed over after this long without an answer (redis.conf's default is 15 s). */
const NODE_TIMEOUT_MS = 2_000;

export interface RedisCluster {
  /** `redis+cluster://:password@127.0.0.1:port,...` (REDIS_URL's cluster form). */
  readonly url: string;
  readonly ports: readonly number[];
  /** The port of the master serving `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** SIGKILL of one node's process; resolves once it is gone. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again (same port and data directory). */
  restart(port: number): Promise<void>;
  /** `redis-cli` against one node (arguments as for redis-cli); its standard output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** Every slot served by a master whose replica is in sync, as `cluster-replicas 1` left it. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface Node {
  readonly port: number;
  readonly busPort: number;
  readonly dir: string;
  child: ChildProcess | undefined;
}

/**
 * Starts the cluster; if `--cluster create` fails (once seen in CI, cause unknown: a port taken
 * between `freePort` and the bind is the likely one), says why on stderr and tries once more on
 * fresh ports and directories. What the tests check starts only once the cluster is healthy.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  try {
    return await startClusterOnce();
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    console.warn(
      `redis cluster did not form, trying once more on fresh ports: ${e.message}\n` +
        `${e.stdout ?? ''}${e.stderr ?? ''}`,
    );
    return startClusterOnce();
  }
}

async function startClusterOnce(): Promise<RedisCluster> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-cluster-'));
  const bin = await ensureRedisServer(SEARCH_PATH);
  const password = randomBytes(12).toString('hex');
  const nodes: Node[] = [];
  for (let i = 0; i < 6; i++) {
    const dir = path.join(root, `node-${i}`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(
      path.join(dir, 'redis.conf'),
      `requirepass ${password}\nmasterauth ${password}\n`,
      { mode: 0o600 },
    );
    nodes.push({ port: await freePort(), busPort: await freePort(), dir, child: undefined });
  }
  const byPort = (port: number) => nodes.find((n) => n.port === port)!;
  const start = async (node: Node) => {
    const args = [
      ...redisServerArgs(node.dir, node.port, path.join(node.dir, 'redis.conf')),
      ...['--cluster-enabled', 'yes', '--cluster-config-file', path.join(node.dir, 'nodes.conf')],
      ...['--cluster-port', String(node.busPort), '--cluster-node-timeout', `${NODE_TIMEOUT_MS}`],
    ];
    node.child = spawnService(bin, args, path.join(node.dir, 'redis.log'));
    await waitForPort(node.port, node.child, 15_000, `cluster redis-server :${node.port}`);
  };
  const cli = async (port: number, ...args: string[]) =>
    (
      await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
        env: { ...process.env, REDISCLI_AUTH: password },
        timeout: 60_000,
      })
    ).stdout;

  const cluster: RedisCluster = {
    url: `redis+cluster://:${password}@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    ports: nodes.map((n) => n.port),
    cli,
    async masterOf(key) {
      const slot = new Command('exists', [key]).getSlot();
      for (const node of nodes) {
        if (!node.child?.pid || !isAlive(node.child.pid)) continue;
        const owner = masterInNodes(await cli(node.port, 'cluster', 'nodes').catch(() => ''), slot);
        if (owner !== undefined) return owner;
      }
      throw new Error(`no live node knows the master of slot ${slot}`);
    },
    async kill(port) {
      const pid = byPort(port).child?.pid;
      if (pid && isAlive(pid)) {
        process.kill(pid, 'SIGKILL');
        await eventually(`the killed redis-server :${port} to exit`, () => !isAlive(pid), {
          intervalMs: 20,
        });
      }
      byPort(port).child = undefined;
    },
    restart: (port) => start(byPort(port)),
    async waitHealthy(timeoutMs = 60_000) {
      await eventually(
        'the cluster: 3 masters with an in-sync replica each, all slots ok',
        () => healthy(nodes, cli),
        { timeoutMs, intervalMs: 200 },
      );
    },
    async close() {
      await Promise.all(
        nodes.map(async (n) => {
          if (n.child?.pid) await stopPid(n.child.pid, 10_000);
        }),
      );
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(nodes.map(start));
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await cli(
      nodes[0]!.port,
      '--cluster',
      'create',
      ...addresses,
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    );
    await cluster.waitHealthy();
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}

/**
 * The master port of `slot` in `CLUSTER NODES` output: one line per node, `id ip:port@bus flags
 * master-id ping pong epoch link slot...`, slots as `a-b` or `a`.
 */
function masterInNodes(text: string, slot: number): number | undefined {
  for (const line of text.split('\n')) {
    const [, address, flags, , , , , link, ...slots] = line.trim().split(' ');
    if (!address || !flags || link !== 'connected') continue;
    const roles = flags.split(',');
    if (!roles.includes('master') || roles.includes('fail') || roles.includes('fail?')) continue;
    const owns = slots.some((range) => {
      const [a, b = a] = range.split('-').map(Number);
      return a !== undefined && b !== undefined && slot >= a && slot <= b;
    });
    if (owns) return Number(/:(\d+)@/.exec(address)?.[1]);
  }
  return undefined;
}

async function healthy(nodes: readonly Node[], cli: RedisCluster['cli']): Promise<boolean> {
  const live = nodes.filter((n) => n.child?.pid && isAlive(n.child.pid));
  if (live.length !== nodes.length) return false;
  let masters = 0;
  for (const node of live) {
    const info = await cli(node.port, 'cluster', 'info').catch(() => '');
    if (!/cluster_state:ok/.test(info)) return false;
    const replication = await cli(node.port, 'info', 'replication').catch(() => '');
    if (/role:master/.test(replication)) {
      masters++;
      // Its replica is attached and streaming (state=online).
      if (!/slave0:.*state=online/.test(replication)) return false;
    } else if (!/master_link_status:up/.test(replication)) return false;
  }
  return masters === 3;
}
