/**
 * The ports the platform-neutral core talks through. Each platform (Node here; a Cordova or
 * React Native bridge elsewhere) supplies one adapter per port. The core holds no sockets, files,
 * timers or crypto of its own, so unit tests drive it with fakes and a fake clock.
 */
import type { Scratch } from '../protocol/delta/df-old';

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface HttpReply {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** A response whose body arrives in chunks: a download or an event stream. */
export interface OpenResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: AsyncIterable<Uint8Array>;
  /** Ends the response early; the body's iteration then ends (or fails). */
  close(): void;
}

/** Network failures reject (the caller retries); HTTP statuses resolve, whatever they are. */
export interface Transport {
  request(req: HttpRequest): Promise<HttpReply>;
  open(req: HttpRequest): Promise<OpenResponse>;
}

/** Small persistent records (JSON text) and the files of downloaded APKs. */
export interface Storage {
  read(key: string): Promise<string | null>;
  write(key: string, value: string): Promise<void>;
  /** Synchronous write, when the platform has one: used while the process is crashing. */
  writeSync?(key: string, value: string): void;
  fileSize(name: string): Promise<number>;
  append(name: string, chunk: Uint8Array): Promise<void>;
  removeFile(name: string): Promise<void>;
  readFile(name: string): AsyncIterable<Uint8Array>;
  /** Where the file is, as the installer and the APPLY broadcast's `uri` extra name it. */
  location(name: string): string;
}

export interface Hasher {
  update(chunk: Uint8Array): void;
  /** Lower-case hex. */
  digest(): string;
}

export interface Crypto {
  hasher(algorithm: 'md5' | 'sha256'): Hasher;
  /** Ed25519 over `message`, public key as SPKI DER in base64, signature in base64. */
  verifyEd25519(publicKeySpkiBase64: string, message: Uint8Array, signatureBase64: string): boolean;
}

/** The APK this installation runs, read by position: what a delta patch applies to. */
export interface InstalledApk {
  readonly md5: string;
  readonly size: number;
  /** Exactly `length` bytes at `position`, inside [0, size). */
  read(position: number, length: number): Promise<Uint8Array>;
}

/** A private temp file for an ARDELTA2 patch's dfOld; `discard` deletes it (any time, twice too). */
export interface DeltaScratch extends Scratch {
  discard(): Promise<void>;
}

/** zlib (RFC 1950) inflation as a stream; a corrupt stream makes the iteration throw. */
export interface Inflater {
  inflate(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array>;
}

export type Cancel = () => void;

export interface Clock {
  now(): number;
  /**
   * A one-shot timer that never keeps the process alive (unref'd on Node), except with
   * `keepAlive`: only the deadline of a flush/close someone awaits is kept alive.
   */
  setTimeout(fn: () => void, ms: number, keepAlive?: boolean): Cancel;
  /** In [0, 1): backoff jitter. */
  random(): number;
}

export interface Notification {
  readonly title: string;
  readonly description: string;
}

export type PopupAction = 'update' | 'not_now';

export interface Popup {
  readonly kind: 'friendly' | 'annoying';
  readonly message: string;
  readonly buttons: ReadonlyArray<{ readonly label: string; readonly action: PopupAction }>;
  /** Back/dismiss is blocked: the popup stays until a button is pressed. */
  readonly dismissible: false;
}

/** Notifications and popups. `activity` is whatever `setCurrentActivity` was given. */
export interface Ui {
  showNotification(notification: Notification, onClick: () => void): void;
  cancelNotification(): void;
  showPopup(activity: unknown, popup: Popup, onButton: (action: PopupAction) => void): void;
  hidePopup(): void;
}

/** Hands a verified APK to the OS. Rejecting means the OS refused it (downgrade, parse error…). */
export interface Installer {
  install(
    location: string,
    apk: { readonly md5: string; readonly versionCode: number },
  ): Promise<void>;
}

/** Broadcasts to the application (CUSTOM strategy): `<app_package>.svc.APPLY`, `.svc.GIVEUP`. */
export interface Broadcaster {
  send(action: string, extras: Readonly<Record<string, string>>): void;
}

/** Automatic capture of uncaught errors in the runtime. */
export interface ErrorCapture {
  /** Starts calling `handler` for uncaught errors; returns the function that stops it. */
  install(handler: (error: unknown) => void): Cancel;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, message: string): void;
}

export interface Ports {
  readonly transport: Transport;
  readonly storage: Storage;
  readonly crypto: Crypto;
  readonly clock: Clock;
  readonly ui: Ui;
  readonly installer: Installer;
  readonly broadcaster: Broadcaster;
  readonly errorCapture: ErrorCapture;
  readonly logger: Logger;
  /**
   * Delta updates (docs/delta-updates.md): with both, a version notice is first fetched as a
   * patch from the installed APK; without them, always the full APK.
   */
  readonly installedApk?: InstalledApk;
  readonly inflater?: Inflater;
  /** A new scratch file per patch: with it, ARDELTA2 (file-by-file) patches are asked for too. */
  readonly deltaScratch?: () => DeltaScratch;
  /** Releases what the adapters own (connection pools…); called last by `close`. */
  readonly dispose?: () => void;
}
