/** Types of www/apkrelay.js (window.PushLink / window.ApkRelay) for TypeScript apps and tests. */
type Success<T = unknown> = ((value: T) => void) | undefined;
type Failure = ((message: string) => void) | undefined;

type StrategyName = 'STATUS_BAR' | 'FRIENDLY_POPUP' | 'ANNOYING_POPUP' | 'CUSTOM' | 'NINJA';

interface StrategyProperties {
  statusBarTitle?: string;
  statusBarDescription?: string;
  popUpMessage?: string;
  notNowButton?: string;
  updateButton?: string;
  reminderTimeInSeconds?: number;
}

interface StartOptions {
  apiKey: string;
  deviceId: string;
  pushUrl?: string;
  baseUrl?: string;
  pushKey?: string;
  successCallback?: Success;
  errorCallback?: Failure;
}

interface ApkRelayCordova {
  readonly STATUS_BAR: 'STATUS_BAR';
  readonly FRIENDLY_POPUP: 'FRIENDLY_POPUP';
  readonly ANNOYING_POPUP: 'ANNOYING_POPUP';
  readonly CUSTOM: 'CUSTOM';
  readonly NINJA: 'NINJA';
  start(options: StartOptions): void;
  /** The form before PushLink's Cordova plugin 6.0.1; packageName is ignored. */
  start(
    packageName: string,
    apiKey: string,
    deviceId: string,
    success?: Success,
    error?: Failure,
  ): void;
  setCurrentStrategy(name: StrategyName, success?: Success, error?: Failure): void;
  setCurrentStrategy(
    name: StrategyName,
    properties: StrategyProperties,
    success?: Success,
    error?: Failure,
  ): void;
  getCurrentStrategy(success?: Success<string>, error?: Failure): void;
  hasPendingUpdate(success?: Success<boolean>, error?: Failure): void;
  /** Installs the downloaded update now (silently where the platform allows); false: none downloaded, or idle false. */
  applyUpdate(success?: Success<boolean>, error?: Failure): void;
  idle(isIdle: boolean, success?: Success, error?: Failure): void;
  addMetadata(key: string, value: string, success?: Success, error?: Failure): void;
  addExceptionMetadata(key: string, value: string, success?: Success, error?: Failure): void;
  sendAsyncException(e: unknown, success?: Success, error?: Failure): void;
  sendAsyncException(
    e: unknown,
    extra: Record<string, string> | null | undefined,
    success?: Success,
    error?: Failure,
  ): void;
  enableExceptionNotification(success?: Success, error?: Failure): void;
  disableExceptionNotification(success?: Success, error?: Failure): void;
  setMaxExceptionQueueSize(size: number, success?: Success, error?: Failure): void;
}

declare const apkrelay: ApkRelayCordova;
export = apkrelay;
