/**
 * The client on Node: `createNodeClient()` for one installation per instance (the simulator
 * makes thousands), and `Client`, the process's one client (spec: a second start is ignored).
 */
import { DeviceClient, type ClientOptions, type StartParams } from '../core/client';
import type { Broadcaster, Clock, ErrorCapture, Logger, Transport, Ui } from '../core/ports';
import {
  EventBroadcaster,
  logUi,
  nodeClock,
  nodeCrypto,
  nodeInstaller,
  printLogger,
  processErrorCapture,
} from './adapters';
import { fileStorage } from './file-storage';
import { installedApkFile, nodeInflater } from './inflater';
import { scratchFiles } from './scratch-file';
import { nodeTransport } from './transport';

export interface NodeStartParams extends StartParams {
  /** Where this installation keeps its state, queue and downloads. */
  readonly storageDir: string;
  readonly ca?: string;
  readonly insecure?: boolean;
  /** Installer: a command run with the APK path appended, or a callback. */
  readonly installCommand?: readonly string[];
  readonly onInstall?: (
    file: string,
    apk: { md5: string; versionCode: number },
  ) => Promise<void> | void;
  /** Overrides of single ports (a shared transport, a quiet logger, a real UI…). */
  readonly transport?: Transport;
  readonly logger?: Logger;
  readonly ui?: Ui;
  readonly broadcaster?: Broadcaster;
  readonly errorCapture?: ErrorCapture;
  /** The timers' clock (default: the real one); a test's manual clock decides when they fire. */
  readonly clock?: Clock;
  /**
   * The installed APK's file (its MD5 is `installedMd5`, its size `installedApkSize`): with it,
   * updates come as delta patches when the server has one (docs/delta-updates.md).
   */
  readonly installedApkFile?: string;
  readonly installedApkSize?: number;
}

/** The delta ports, when the installed APK's file, MD5 and size are known. */
function deltaPorts(p: NodeStartParams) {
  const { installedApkFile: file, installedMd5: md5, installedApkSize: size } = p;
  if (file === undefined || !md5 || size === undefined) return {};
  return {
    installedApk: installedApkFile(file, md5, size),
    inflater: nodeInflater,
    deltaScratch: scratchFiles(p.storageDir),
  };
}

export function createNodeClient(options: ClientOptions = {}): DeviceClient<NodeStartParams> {
  return new DeviceClient<NodeStartParams>((p) => {
    const logger = p.logger ?? printLogger(`apkrelay ${p.deviceId}`);
    // A transport given by the caller is the caller's to close; one made here closes with us.
    const own = p.transport
      ? undefined
      : nodeTransport({
          ...(p.ca !== undefined ? { ca: p.ca } : {}),
          insecure: p.insecure ?? false,
        });
    return {
      transport: p.transport ?? own!,
      ...(own ? { dispose: () => own.destroy() } : {}),
      storage: fileStorage(p.storageDir),
      crypto: nodeCrypto,
      clock: p.clock ?? nodeClock,
      ui: p.ui ?? logUi(logger),
      installer: nodeInstaller({
        ...(p.installCommand ? { command: p.installCommand } : {}),
        ...(p.onInstall ? { onInstall: p.onInstall } : {}),
      }),
      broadcaster: p.broadcaster ?? broadcaster,
      errorCapture: p.errorCapture ?? processErrorCapture(),
      logger,
      ...deltaPorts(p),
    };
  }, options);
}

/** The process's broadcaster: register receivers with `broadcaster.on(action, …)`. */
export const broadcaster = new EventBroadcaster();

/** The process's client (spec 4.4's `Client`). */
export const Client = createNodeClient();

export { EventBroadcaster, nodeTransport, fileStorage, printLogger, logUi };
export { noErrorCapture } from './adapters';
export { processErrorCapture } from './adapters';
