/**
 * Debian's nginx for the topology test: installed when absent (as root, with apt-get), started in
 * the foreground on a private prefix with the ops/deploy templates rendered by ops/deploy/render.sh
 * (the operator's own path), and stopped by the test. Nothing of it outlives `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect, type LookupFunction } from 'node:net';
import path from 'node:path';
import { eventually } from './eventually';
import type { HeldPort } from './held-port';
import { execFile } from './processes';
import { track } from './resources';

const NGINX = '/usr/sbin/nginx';
const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';
const DEPLOY = path.resolve(__dirname, '../../ops/deploy');

/** The server names of the three hosts in the tests; `lookup` resolves them to loopback. */
export const SERVER_NAMES = {
  admin: 'admin.apkrelay.test',
  web: 'web.apkrelay.test',
  push: 'push.apkrelay.test',
} as const;

/** Resolves SERVER_NAMES to nginx's loopback address, as DNS would in production. */
export const lookup: LookupFunction = (hostname, options, callback) => {
  if (!(Object.values(SERVER_NAMES) as string[]).includes(hostname))
    throw new Error(`unexpected host ${hostname}`);
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

/** MAX_APK_BYTES of the API processes behind the test's nginx; its upload bound is 1 MiB above. */
export const MAX_APK_BYTES = 256 * 1024;

type HostPorts = { readonly admin: number; readonly web: number; readonly push: number };

/**
 * The templates' variables (ops/deploy/example.env) for nginx on loopback: `https` and `legacy`
 * its listening ports, `apis` the two API processes' ports, `legacyBackends` the two ports behind
 * the legacy push port. The certificate is written into `dir`.
 */
export function deployVars(
  dir: string,
  listen: { readonly https: number; readonly legacy: number },
  tls: { readonly cert: string; readonly key: string },
  apis: readonly [HostPorts, HostPorts],
  legacyBackends: readonly [number, number],
): Record<string, string> {
  const written = (file: string, text: string) => {
    writeFileSync(path.join(dir, file), text, { mode: 0o600 });
    return path.join(dir, file);
  };
  const vars: Record<string, string> = {
    HTTPS_LISTEN: `127.0.0.1:${listen.https}`,
    ADMIN_SERVER_NAME: SERVER_NAMES.admin,
    WEB_SERVER_NAME: SERVER_NAMES.web,
    PUSH_SERVER_NAME: SERVER_NAMES.push,
    TLS_CERT: written('tls.crt', tls.cert),
    TLS_KEY: written('tls.key', tls.key),
    UPLOAD_BODY_MAX: `${MAX_APK_BYTES / 1024 + 1024}k`,
    DEVICE_BODY_MAX: '3m',
    UPLOAD_WAIT: '120s',
    LEGACY_LISTEN: `127.0.0.1:${listen.legacy}`,
    // The API processes' DOWNLOAD_OFFLOAD_DIR, when they offload downloads to nginx.
    DOWNLOAD_OFFLOAD_DIR: path.join(dir, 'offload'),
  };
  (['A', 'B'] as const).forEach((p, i) => {
    vars[`API_${p}_ADMIN`] = `127.0.0.1:${apis[i]!.admin}`;
    vars[`API_${p}_WEB`] = `127.0.0.1:${apis[i]!.web}`;
    vars[`API_${p}_PUSH`] = `127.0.0.1:${apis[i]!.push}`;
    vars[`API_${p}_LEGACY`] = `127.0.0.1:${legacyBackends[i]!}`;
  });
  return vars;
}

/** Installs Debian's nginx and its stream module when absent; leaves the system's nginx stopped. */
export async function ensureNginx(): Promise<void> {
  if (existsSync(NGINX) && existsSync(STREAM_MODULE)) return;
  if (process.getuid?.() !== 0)
    throw new Error(`nginx is missing: run apt-get install -y nginx libnginx-mod-stream as root`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await execFile('apt-get', ['update', '-qq'], { env });
  await execFile('apt-get', ['install', '-y', '-qq', 'nginx', 'libnginx-mod-stream'], { env });
  // Debian starts the packaged service on install where it can: this test runs its own.
  await execFile('systemctl', ['disable', '--now', 'nginx']).catch(() => undefined);
}

export interface RunningNginx {
  readonly dir: string;
  stop(): Promise<void>;
}

/** Renders an ops/deploy template with `vars` through ops/deploy/render.sh. */
export async function render(
  dir: string,
  vars: Record<string, string>,
  template: string,
): Promise<string> {
  const varsFile = path.join(dir, 'deploy.env');
  await writeFile(
    varsFile,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  const { stdout } = await execFile(path.join(DEPLOY, 'render.sh'), [
    varsFile,
    path.join(DEPLOY, template),
  ]);
  return stdout;
}

function mainConfig(dir: string): string {
  const tmp = (name: string) => `${name}_temp_path ${path.join(dir, 'tmp', name)};`;
  return [
    `load_module ${STREAM_MODULE};`,
    process.getuid?.() === 0 ? 'user root root;' : '',
    'worker_processes 1;',
    'daemon off;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} warn;`,
    'events { worker_connections 4096; }',
    'http {',
    `  access_log ${path.join(dir, 'access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((n) => `  ${tmp(n)}`),
    `  include ${path.join(dir, 'apkrelay.conf')};`,
    '}',
    `stream { include ${path.join(dir, 'apkrelay-stream.conf')}; }`,
    '',
  ].join('\n');
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once('connect', () => {
      resolve(true);
      socket.destroy();
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

/** Whether nginx `child` has written its pid file, which it does once its ports are bound. */
async function nginxBound(dir: string, child: ChildProcess): Promise<boolean> {
  const pid = await readFile(path.join(dir, 'nginx.pid'), 'utf8').catch(() => '');
  return pid.trim() === String(child.pid);
}

/**
 * Starts nginx with the rendered ops/deploy templates in `dir`, waiting until it has bound its
 * ports and they accept connections. `vars` are the templates' variables (ops/deploy/example.env
 * names them); `ports` its listening ports, each held (held-port.ts) until nginx is started.
 */
export async function startNginx(
  dir: string,
  vars: Record<string, string>,
  held: readonly HeldPort[],
): Promise<RunningNginx> {
  const ports = held.map((h) => h.port);
  await mkdir(path.join(dir, 'tmp'), { recursive: true });
  await writeFile(
    path.join(dir, 'apkrelay.conf'),
    await render(dir, vars, 'nginx/apkrelay.conf.in'),
  );
  await writeFile(
    path.join(dir, 'apkrelay-stream.conf'),
    await render(dir, vars, 'nginx/apkrelay-stream.conf.in'),
  );
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(conf, mainConfig(dir));
  const args = ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', conf];
  await execFile(NGINX, [...args, '-t']);
  await Promise.all(held.map((h) => h.release()));
  const child: ChildProcess = spawn(NGINX, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const stop = track('nginx', async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  });
  try {
    await eventually(
      `nginx to listen on ${ports.join(', ')}`,
      async () => {
        if (child.exitCode !== null) {
          const log = await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '');
          throw new Error(`nginx exited (${child.exitCode}): ${stderr}${log}`);
        }
        // nginx writes its pid file once every port is bound: a port another process took makes
        // it exit instead ("still could not bind()"), while that process's listener answers.
        if (!(await nginxBound(dir, child))) return false;
        return (await Promise.all(ports.map(listening))).every(Boolean);
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { dir, stop };
}
