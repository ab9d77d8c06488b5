/**
 * nginx as a benchmark's reference static file server: one file over HTTPS on a free loopback
 * port, from a minimal config written to a temporary prefix (`daemon off`, `sendfile on`, pid,
 * logs and temp paths inside it), run in the foreground as our child with `-p`, `-c` and `-e`.
 * `ensureNginx` finds the binary, installing Debian's `nginx` with apt-get when running as root,
 * and otherwise fails saying what to install. `stop()` ends nginx and removes the prefix.
 */
import { execFile as execFileCb, spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { processEnv } from '../../../shared/config';
import { which } from '../../services/binaries';
import { freePort, stopPid, waitForPort } from '../../services/child';

const execFile = promisify(execFileCb);
const SBIN = ['/usr/sbin', '/sbin'];

export interface NginxOptions {
  /** The file served at `urlPath` (query strings are ignored). */
  readonly file: string;
  readonly urlPath: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly contentType: string;
  /**
   * Also apkrelay behind this nginx with DOWNLOAD_OFFLOAD=nginx, as ops/deploy/nginx configures
   * it: `/download` proxied in plain HTTP over kept-alive connections to `upstream` (`host:port`
   * of the API's web host, running with TLS=off), and the internal locations over the API's
   * offload directory `dir`.
   */
  readonly offload?: { readonly upstream: string; readonly dir: string };
}

export interface NginxServer {
  /** `https://127.0.0.1:<port>` */
  readonly origin: string;
  readonly pid: number;
  /** The pids of the worker processes (empty when /proc does not list children). */
  workerPids(): Promise<number[]>;
  stop(): Promise<void>;
}

function searchPath(): string {
  return [processEnv().PATH ?? '', ...SBIN].join(path.delimiter);
}

/** The nginx binary, installed with apt-get first when missing and this process is root. */
export async function ensureNginx(): Promise<string> {
  const found = await which('nginx', searchPath());
  if (found) return found;
  const apt = await which('apt-get', searchPath());
  if (process.getuid?.() !== 0 || !apt) {
    throw new Error(
      'nginx is not installed: install it (Debian/Ubuntu: `sudo apt-get install nginx`) and re-run.',
    );
  }
  const install = [
    'DEBIAN_FRONTEND=noninteractive',
    apt,
    'install',
    '-y',
    '--no-install-recommends',
  ];
  try {
    await execFile('env', [...install, 'nginx']);
  } catch {
    // The package lists may be missing or stale on a fresh machine.
    await execFile('env', ['DEBIAN_FRONTEND=noninteractive', apt, 'update']);
    await execFile('env', [...install, 'nginx']);
  }
  const installed = await which('nginx', searchPath());
  if (!installed) throw new Error('apt-get installed nginx but no nginx binary was found');
  return installed;
}

/**
 * The deploy config's upstream for the web host (ops/deploy/nginx/apkrelay.conf.in, one API
 * process here): plain HTTP, idle connections kept and dropped after 3 s, under the API's 5 s.
 */
function offloadUpstream(o: NonNullable<NginxOptions['offload']>): string {
  return `
  upstream apkrelay_web {
    server ${o.upstream} max_fails=0;
    keepalive 16;
    keepalive_timeout 3s;
  }`;
}

/** The deploy config's download locations (ops/deploy/nginx/apkrelay.conf.in), for the bench. */
function offloadLocations(o: NonNullable<NginxOptions['offload']>, contentType: string): string {
  const internal = (location: string, extra: string) => `
    location ${location} {
      internal;
      alias ${o.dir}/;
      types { }
      default_type ${contentType};
      etag off;
      if_modified_since off;
      add_header ETag $upstream_http_etag;${extra}
    }`;
  return `
    location = /download {
      proxy_pass http://apkrelay_web;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_max_temp_file_size 0;
    }${internal('/_apkrelay/apk/', '')}${internal('/_apkrelay/apk-whole/', '\n      max_ranges 0;')}`;
}

function config(prefix: string, port: number, o: NginxOptions): string {
  const p = (name: string) => path.join(prefix, name);
  return `daemon off;
worker_processes auto;
pid ${p('nginx.pid')};
error_log ${p('error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path ${p('client_body')};
  proxy_temp_path ${p('proxy')};
  fastcgi_temp_path ${p('fastcgi')};
  uwsgi_temp_path ${p('uwsgi')};
  scgi_temp_path ${p('scgi')};${o.offload ? offloadUpstream(o.offload) : ''}
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${o.certFile};
    ssl_certificate_key ${o.keyFile};
    ssl_protocols TLSv1.2 TLSv1.3; # 1.22 defaults to TLSv1.2 at most; Node servers offer 1.3
    location = ${o.urlPath} {
      alias ${o.file};
      types { }
      default_type ${o.contentType};
    }${o.offload ? offloadLocations(o.offload, o.contentType) : ''}
  }
}
`;
}

export async function startNginx(binary: string, options: NginxOptions): Promise<NginxServer> {
  const prefix = await mkdtemp(path.join(tmpdir(), 'apkrelay-bench-nginx-'));
  await chmod(prefix, 0o755); // workers drop to an unprivileged user when started as root
  const port = await freePort();
  const confFile = path.join(prefix, 'nginx.conf');
  await writeFile(confFile, config(prefix, port, options));
  const args = ['-p', prefix, '-c', confFile, '-e', path.join(prefix, 'error.log')];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.pid !== undefined) await stopPid(child.pid, 10_000);
      await rm(prefix, { recursive: true, force: true });
    })());
  try {
    await waitForPort(port, child, 15_000, 'nginx');
  } catch (err) {
    const log = await readFile(path.join(prefix, 'error.log'), 'utf8').catch(() => '');
    await stop();
    throw new Error(`${(err as Error).message}\n${stderr}${log}`, { cause: err });
  }
  const pid = child.pid ?? -1;
  return {
    origin: `https://127.0.0.1:${port}`,
    pid,
    async workerPids() {
      const list = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
      return list.split(' ').filter(Boolean).map(Number);
    },
    stop,
  };
}
