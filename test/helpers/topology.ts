/**
 * The production topology on one machine, for the topology test: API and worker processes of the
 * BUILT program (`node dist/ops/cli/main.js start --only api|workers`) on a test stack's Redis,
 * database and queue prefix, as the systemd units of ops/deploy run them: TLS off, loopback only,
 * TRUST_PROXY=loopback, each API process on its own three ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { Queue } from 'bullmq';
import { freePort } from '../../ops/services/child';
import { closeRedis, createWorkerRedis } from '../../shared/storage/redis';
import { eventually } from './eventually';
import { request } from './http';
import { stackEnv } from './processes';
import { track } from './resources';
import type { TestStack } from './stack';

const root = path.resolve(__dirname, '../..');

export interface RoleProcess {
  readonly child: ChildProcess;
  /** Set for an API process: its admin, web and push ports. */
  readonly ports?: { readonly admin: number; readonly web: number; readonly push: number };
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function launch(stack: TestStack, role: 'api' | 'workers', env: Record<string, string>) {
  const child = spawn('node', ['dist/ops/cli/main.js', 'start', '--only', role], {
    cwd: root,
    env: stackEnv(stack, env),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = track(`${role} process`, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  });
  return {
    child,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (signal !== 'SIGTERM' && child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill(signal);
        await exited;
      }
      await stop();
    },
  };
}

/**
 * An API process on three loopback ports (free ones, or `ports`: a restart on the ports the proxy
 * knows); `env` adds settings (PUBLIC_*_URL, limits).
 */
export async function spawnApiRole(
  stack: TestStack,
  env: Record<string, string>,
  given?: RoleProcess['ports'],
): Promise<RoleProcess> {
  const ports = given ?? { admin: await freePort(), web: await freePort(), push: await freePort() };
  const role = launch(stack, 'api', {
    TLS: 'off',
    HOST: '127.0.0.1',
    TRUST_PROXY: 'loopback',
    PORT: String(ports.admin),
    WEB_PORT: String(ports.web),
    PUSH_PORT: String(ports.push),
    ...env,
  });
  await eventually(
    `the API process on ${ports.admin} to answer /healthz`,
    async () => {
      if (role.child.exitCode !== null) throw new Error('the API process exited at start');
      return request(`http://127.0.0.1:${ports.admin}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return { ...role, ports };
}

/** A worker process (it listens on no port). Ready is seen through /readyz on an API process. */
export function spawnWorkerRole(stack: TestStack, env: Record<string, string> = {}): RoleProcess {
  return launch(stack, 'workers', { BACKUP_DIR: path.join(stack.dataDir, 'backups'), ...env });
}

/** How many BullMQ workers (in any process) are connected to `queue` of the stack's prefix. */
export async function workersOf(stack: TestStack, queue: string): Promise<number> {
  const redis = createWorkerRedis(stack.redisUrl, 'test:workers-of');
  const q = new Queue(queue, { connection: redis, prefix: stack.prefix });
  try {
    return (await q.getWorkers()).length;
  } finally {
    await q.close();
    await closeRedis(redis);
  }
}
