/**
 * Node adapters of the small ports: real clock (timers unref'd), node:crypto, a UI that prints
 * to the log, an installer that runs a command or calls back, an in-process broadcaster, and
 * capture of uncaught errors through process events (one process listener for every client).
 */
import { execFile } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import type {
  Broadcaster,
  Clock,
  Crypto,
  ErrorCapture,
  Installer,
  Logger,
  LogLevel,
  Ui,
} from '../core/ports';

export const nodeClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms, keepAlive) {
    const t = setTimeout(fn, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
    if (!keepAlive) t.unref();
    return () => clearTimeout(t);
  },
  random: () => Math.random(),
};

export const nodeCrypto: Crypto = {
  hasher(algorithm) {
    const h = createHash(algorithm);
    return {
      update: (chunk) => void h.update(chunk),
      digest: () => h.digest('hex'),
    };
  },
  verifyEd25519(publicKey, message, signature) {
    const key = createPublicKey({
      key: Buffer.from(publicKey, 'base64'),
      format: 'der',
      type: 'spki',
    });
    return verify(null, message, key, Buffer.from(signature, 'base64'));
  },
};

/** Log lines to a function (default: stderr), each prefixed with a tag. */
export function printLogger(
  tag = 'apkrelay',
  write: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
  minLevel: LogLevel = 'info',
): Logger {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  return {
    log(level, message) {
      if (order.indexOf(level) >= order.indexOf(minLevel)) write(`[${tag}] ${level}: ${message}`);
    },
  };
}

/** A UI without a screen: notifications and popups become log lines. */
export function logUi(logger: Logger): Ui {
  return {
    showNotification: (n) => logger.log('info', `notification: ${n.title} — ${n.description}`),
    cancelNotification: () => logger.log('info', 'notification cancelled'),
    showPopup: (_activity, p) =>
      logger.log('info', `popup: ${p.message} [${p.buttons.map((b) => b.label).join('] [')}]`),
    hidePopup: () => logger.log('info', 'popup hidden'),
  };
}

/**
 * Runs `command` with the APK's path as its last argument (e.g. `['adb', 'install', '-r']`), or
 * hands the file to `onInstall`. Neither: the installation is refused.
 */
export function nodeInstaller(options: {
  command?: readonly string[];
  onInstall?: (file: string, apk: { md5: string; versionCode: number }) => Promise<void> | void;
}): Installer {
  return {
    async install(location, apk) {
      const file = fileURLToPath(location);
      if (options.onInstall) return void (await options.onInstall(file, apk));
      const [cmd, ...args] = options.command ?? [];
      if (!cmd) throw new Error('no installer configured (command or onInstall)');
      await new Promise<void>((resolve, reject) =>
        execFile(cmd, [...args, file], (err) => (err ? reject(new Error(err.message)) : resolve())),
      );
    },
  };
}

/** In-process broadcasts: `on(action, listener)` is the registered receiver. */
export class EventBroadcaster implements Broadcaster {
  private readonly emitter = new EventEmitter();
  send(action: string, extras: Readonly<Record<string, string>>): void {
    this.emitter.emit(action, extras);
  }
  on(action: string, listener: (extras: Readonly<Record<string, string>>) => void): () => void {
    this.emitter.on(action, listener);
    return () => void this.emitter.off(action, listener);
  }
}

const handlers = new Set<(error: unknown) => void>();
const onError = (error: unknown) => {
  for (const h of handlers) h(error);
};

/**
 * Uncaught exceptions and unhandled rejections are reported (written synchronously to the
 * queue), then the process exits with status 1 as Node would have without a handler.
 */
export function processErrorCapture(
  exit: (code: number) => void = (c) => process.exit(c),
): ErrorCapture {
  return {
    install(handler) {
      if (handlers.size === 0) {
        process.on('uncaughtException', fatal);
        process.on('unhandledRejection', fatal);
      }
      handlers.add(handler);
      return () => {
        handlers.delete(handler);
        if (handlers.size === 0) {
          process.off('uncaughtException', fatal);
          process.off('unhandledRejection', fatal);
        }
      };
    },
  };
  function fatal(error: unknown): void {
    onError(error);
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    exit(1);
  }
}

/** For hosts that capture errors themselves (and the simulator: thousands of clients). */
export const noErrorCapture: ErrorCapture = { install: () => () => undefined };
