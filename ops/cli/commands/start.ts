/**
 * `apkrelay start`: the whole service as one process tree (embedded Redis and MongoDB-protocol
 * server when no URLs are configured, then an API process and a worker process), or one role with
 * `--only api|workers` for scaling out. Each process has one shutdown path; the supervisor stops
 * its children first and the services it started last.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import { Option, type Command } from 'commander';
import { startApi } from '../../../api/main';
import type { Config } from '../../../shared/config';
import { resolveMasterKey } from '../../../shared/crypto/master-key';
import { resolveTlsMaterial } from '../../../shared/crypto/tls';
import type { Logger } from '../../../shared/log';
import { startWorkers } from '../../../workers/main';
import { installShutdown } from '../../process/shutdown';
import { ensureServices, type Services } from '../../services/embedded';
import { stepReporter } from '../../services/steps';
import { cliConfig, cliLogger } from '../context';

type Role = 'api' | 'workers';
interface ReadyMessage {
  type: 'ready';
  role: Role;
}

export function register(program: Command): void {
  program
    .command('start')
    .description(
      'Run apkrelay: API (three HTTPS listeners) and workers, on embedded services by default.',
    )
    .addOption(new Option('--only <role>', 'run a single role').choices(['api', 'workers']))
    .action(async (opts: { only?: Role }) => {
      const config = cliConfig();
      if (opts.only) await runRole(config, opts.only);
      else await supervise(config);
    });
}

function hostnames(config: Config): string[] {
  return [config.publicBaseUrl, config.publicWebUrl, config.publicPushUrl].map((u) =>
    new URL(u).hostname.replace(/^\[|\]$/g, ''),
  );
}

async function runRole(config: Config, role: Role): Promise<void> {
  const log = cliLogger(config, role);
  const services = await ensureServices(config, stepReporter(process.stderr));
  const masterKey = await resolveMasterKey(config.masterKey, config.dataDir, log);
  const common: RoleCommon = {
    log,
    redisUrl: services.redisUrl,
    mongoUrl: services.mongoUrl,
    queuePrefix: config.queuePrefix,
    masterKey,
    previousMasterKeys: config.masterKeyPrevious,
  };
  const stop = role === 'api' ? await runApi(config, common) : await runWorkers(config, common);
  const shutdown = installShutdown(log, { deadlineMs: config.shutdownTimeoutMs }, async () => {
    await stop();
    await services.stop();
    // The IPC channel to the supervisor would keep this process alive.
    if (process.connected) process.disconnect();
  });
  if (process.send) {
    // Forked by the supervisor: if it dies, the IPC channel closes and this process follows.
    process.once('disconnect', () => void shutdown());
    process.send({ type: 'ready', role } satisfies ReadyMessage);
  }
  if (!process.send && role === 'api') printUrls(config);
}

/** What both roles are started with. */
interface RoleCommon {
  readonly log: Logger;
  readonly redisUrl: string;
  readonly mongoUrl: string;
  readonly queuePrefix: string;
  readonly masterKey: Buffer;
  readonly previousMasterKeys: readonly Buffer[];
}

/** Starts the API role; returns its stop function. */
async function runApi(config: Config, common: RoleCommon): Promise<() => Promise<void>> {
  const { log } = common;
  const tls = config.tls
    ? await resolveTlsMaterial({
        certFile: config.tlsCert,
        keyFile: config.tlsKey,
        dataDir: config.dataDir,
        hostnames: hostnames(config),
      })
    : undefined;
  const api = await startApi({
    ...common,
    tls,
    host: config.host,
    adminHost: config.adminHost,
    hstsMaxAge: config.hstsMaxAge,
    ports: { admin: config.port, web: config.webPort, push: config.pushPort },
    publicUrls: {
      base: config.publicBaseUrl,
      web: config.publicWebUrl,
      push: config.publicPushUrl,
    },
    limits: {
      maxApkBytes: config.maxApkBytes,
      uploadWaitTimeoutMs: config.uploadWaitTimeoutMs,
      maxExceptionBytes: config.maxExceptionBytes,
      heartbeatSeconds: config.heartbeatSeconds,
      uploads: config.uploads,
    },
    ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
    listenerTimeouts: { headersMs: config.headersTimeoutMs, requestMs: config.requestTimeoutMs },
    trustProxy: config.trustProxy,
    authFailureLimits: {
      perAddress: config.authFailuresPerAddress,
      perKey: config.authFailuresPerKey,
    },
    signups: { open: config.signup === 'open', perAddress: config.signupsPerAddress },
    webhookLimits: {
      redeliveriesPerMinute: config.webhooks.redeliveriesPerMinute,
      overPlanWindowMs: config.webhooks.overPlanWindowMs,
    },
    registrationLimits: config.registrationLimits,
    rollouts: config.rollouts,
    ...(config.legacyPushPort
      ? {
          legacyPush: {
            port: config.legacyPushPort,
            tlsMin: config.legacyPushTlsMin,
            bounds: config.legacyPushBounds,
          },
        }
      : {}),
    uploadSpoolDir: path.join(config.dataDir, 'spool', 'uploads'),
    ...(config.downloadCacheMiB > 0
      ? {
          downloadCache: {
            dir: path.join(config.dataDir, 'cache', 'apks'),
            maxBytes: config.downloadCacheMiB * 1024 * 1024,
          },
        }
      : {}),
    ...(config.downloadMemoryMiB > 0
      ? { downloadMemory: { maxBytes: config.downloadMemoryMiB * 1024 * 1024 } }
      : {}),
    ...(config.downloadOffload.mode === 'nginx'
      ? { downloadOffload: { dir: config.downloadOffload.dir } }
      : {}),
  });
  log.info({ ports: api.ports }, 'api listening');
  if (!config.tls && config.trustProxy === false) {
    log.warn(
      'TLS=off (behind a proxy?) but TRUST_PROXY is off: every client appears with the proxy’s address, so the per-address throttles (web login, sign-up, failed API keys) count all clients as one; set TRUST_PROXY',
    );
  }
  return () => api.close(config.shutdownTimeoutMs);
}

/** Starts the workers role; returns its stop function. */
async function runWorkers(config: Config, common: RoleCommon): Promise<() => Promise<void>> {
  const workers = await startWorkers({
    ...common,
    lockMs: config.jobLockMs,
    rollouts: config.rollouts,
    deltas: config.deltas,
    heartbeatSeconds: config.heartbeatSeconds,
    webhooks: config.webhooks,
    spike: config.exceptionSpike,
    backup: {
      dir: config.backupDir,
      keepDays: config.backupKeepDays,
      tz: config.backupTz,
      cron: config.backupCron,
    },
  });
  return () => workers.close();
}

function printUrls(config: Config): void {
  process.stdout.write(
    `apkrelay is running:\n` +
      `  admin + API  ${config.publicBaseUrl}\n` +
      `  web          ${config.publicWebUrl}\n` +
      `  push         ${config.publicPushUrl}\n`,
  );
}

async function supervise(config: Config): Promise<void> {
  const log = cliLogger(config, 'supervisor');
  const children = new Map<Role, ChildProcess>();
  let services: Services | undefined;
  let shuttingDown = false;
  // Installed before anything starts: a Ctrl-C while the services come up stops them too.
  const shutdown = installShutdown(
    log,
    {
      deadlineMs: config.shutdownTimeoutMs,
      // Forced: nothing of the tree may outlive the supervisor, not even then.
      onForce: () => {
        for (const child of children.values()) child.kill('SIGKILL');
        services?.signalStop();
      },
    },
    async () => {
      shuttingDown = true;
      await starting.catch(() => undefined);
      await Promise.all(
        [...children].map(([role, c]) =>
          stopChild(c, config.shutdownTimeoutMs, () =>
            // Said, not silent: a stop that needed the kill was not the graceful one.
            log.warn(
              { child: role, deadlineMs: config.shutdownTimeoutMs },
              'a child did not stop within the shutdown deadline: killed',
            ),
          ),
        ),
      );
      await services?.stop();
    },
  );
  const starting = prepareServices(config, log).then((ready) => (services = ready));
  await starting;
  if (shuttingDown) return;
  const entry = path.join(__dirname, '..', 'main.js');
  const ready = (['api', 'workers'] as const).map((role) => {
    const child = fork(entry, ['start', '--only', role], { stdio: 'inherit' });
    children.set(role, child);
    child.on('exit', (code, signal) => {
      if (shuttingDown) return;
      log.error({ child: role, code, signal }, 'a child process exited; stopping apkrelay');
      process.exitCode = 1;
      void shutdown();
    });
    return waitReady(child, role, log);
  });
  await Promise.all(ready);
  if (!shuttingDown) printUrls(config);
}

/** The embedded services, the master key and the TLS material, made once for the children. */
async function prepareServices(config: Config, log: Logger): Promise<Services> {
  const services = await ensureServices(config, stepReporter(process.stderr));
  try {
    await resolveMasterKey(config.masterKey, config.dataDir, log);
    if (config.tls) {
      await resolveTlsMaterial({
        certFile: config.tlsCert,
        keyFile: config.tlsKey,
        dataDir: config.dataDir,
        hostnames: hostnames(config),
      });
    }
    return services;
  } catch (err) {
    await services.stop();
    throw err;
  }
}

function waitReady(child: ChildProcess, role: Role, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    child.on('message', (message: ReadyMessage) => {
      if (message?.type === 'ready' && message.role === role) {
        log.info({ child: role, childPid: child.pid }, 'ready');
        resolve();
      }
    });
  });
}

async function stopChild(
  child: ChildProcess,
  deadlineMs: number,
  killed: () => void,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    killed();
    child.kill('SIGKILL');
  }, deadlineMs);
  await exited;
  clearTimeout(timer);
}
