import type { Db } from 'mongodb';
import type { AccountsService } from '../shared/accounts/service';
import type { AuthThrottle } from '../shared/accounts/auth-throttle';
import type { SignupThrottle } from '../shared/accounts/signup-throttle';
import type { KeyRing } from '../shared/crypto/keys';
import type { LoginThrottle } from '../shared/accounts/login-throttle';
import type { TotpThrottle } from '../shared/accounts/totp-throttle';
import type { PushKeys } from '../shared/devices/push-signing';
import type { DeviceLookups, LiveState, OverPlanHook } from '../shared/devices/store';
import type { PushHub } from './push/hub';
import type { Producers } from '../shared/queues/producers';
import type { CrashCounter } from '../shared/rollouts/crash-counter';
import type { Redis } from '../shared/storage/redis';
import type { Logger } from '../shared/log';
import type { OffloadDir } from './downloads/offload-dir';
import type { PlaintextMemory } from './downloads/plaintext-memory';
import type { BlobStore } from '../shared/storage/blob-store';
import type { IngestClient } from './uploads/ingest-client';
import type { UploadSlots } from './uploads/upload-slots';
import type { SpoolBudget } from './uploads/pre-auth-hold';
import type { ApiMetrics } from './metrics/api-metrics';
import type { UploadLimits } from '../shared/uploads/upload-limits';
import type { RolloutSettings } from '../shared/rollouts/health';
import type { NoticeSink } from '../shared/notices/notice-sink';
import type { ScreenshotStore } from '../shared/exceptions/screenshots';
import type { IntakeDeps } from './exceptions/intake';
import type { DeliverySink } from '../shared/webhooks/deliveries';
import type { RedeliveryThrottle } from '../shared/webhooks/redelivery-throttle';
import type { RegistrationThrottle } from '../shared/devices/registration-throttle';

/** Liveness of what the API depends on, for /readyz. Each check answers quickly. */
export interface ReadinessChecks {
  redis(): Promise<boolean>;
  mongo(): Promise<boolean>;
  /** True when every registered queue has at least one live worker. */
  workers(): Promise<boolean>;
}

/** Everything the HTTP layer needs, built once in api/main.ts; no env reads, no globals. */
export interface ApiDeps {
  readonly log: Logger;
  readonly db: Db;
  readonly accounts: AccountsService;
  /** Counts failed API-key authentications; past its limits they are answered 429. */
  readonly authThrottle: AuthThrottle;
  /** Counts web login attempts per address and per email from an address; past a limit: 429. */
  readonly loginThrottle: LoginThrottle;
  /** Counts second-factor codes per user and per pending login (issue 31); past a limit: refused. */
  readonly totpThrottle: TotpThrottle;
  /** Public sign-up: open or closed (SIGNUP), and its per-address throttle (SIGNUPS_PER_ADDRESS). */
  readonly signups: { readonly open: boolean; readonly throttle: SignupThrottle };
  /** Proxies believed about the client address (TRUST_PROXY); unset: none. */
  readonly trustProxy?: false | number | readonly string[];
  /** `Strict-Transport-Security` max-age on the admin and web hosts; 0 or unset: not sent. */
  readonly hstsMaxAge?: number;
  readonly keys: KeyRing;
  /** The fail-fast producer connection (a request gets 503 while Redis is down). */
  readonly redis: Redis;
  readonly producers: Producers;
  /** The clock; tests pass their own so time-based rules need no sleeps. */
  readonly now: () => Date;
  readonly blobs: BlobStore;
  /** DOWNLOAD_MEMORY_MB: current APKs decrypted once, downloads sliced from memory; unset: off. */
  readonly memory?: PlaintextMemory;
  /** DOWNLOAD_OFFLOAD=nginx: `/download` bytes sent by nginx from this directory; unset: off. */
  readonly offload?: OffloadDir;
  readonly ingest: IngestClient;
  /** Uploads received at once, per client address and in all (UPLOADS_PER_ADDRESS, UPLOADS_TOTAL). */
  readonly uploadSlots: UploadSlots;
  /** Upload files that came before their key: their private folder and shared disk budget. */
  readonly uploadSpool: { readonly dir: string; readonly budget: SpoolBudget };
  readonly readiness: ReadinessChecks;
  readonly publicUrls: { readonly base: string; readonly web: string; readonly push: string };
  readonly push: PushHub;
  /** Last-seen times and offer state of installations (Redis). */
  readonly live: LiveState;
  readonly pushKeys: PushKeys;
  /** Where making an APK current announces it (appended to the app's Redis notice stream). */
  readonly notices: NoticeSink;
  /** Where webhook deliveries are queued (the webhook-delivery queue). */
  readonly deliveries: DeliverySink;
  /** New installations per key and per app (DEVICE_NEW_REGISTRATIONS_PER_*). */
  readonly registrations: RegistrationThrottle;
  /** Redeliveries by hand per account (WEBHOOK_REDELIVERIES_PER_MINUTE). */
  readonly redeliveries: RedeliveryThrottle;
  /** Told when a new installation registers past its plan (the installation.over_plan event). */
  readonly overPlan: OverPlanHook;
  /** Unhandled exceptions per APK, for the rollouts' health windows. */
  readonly crashes: CrashCounter;
  /** Accounts and apps as devices name them, cached per process (shared/devices/lookups.ts). */
  readonly deviceLookups: DeviceLookups;
  /** The exception intake (one window, one set of caches per process) and the screenshots. */
  readonly exceptions: { readonly intake: IntakeDeps; readonly screenshots: ScreenshotStore };
  /** Counters the routes increment and the collectors `/metrics` renders. */
  readonly metrics: ApiMetrics;
  /** Bearer token of `/metrics` (METRICS_TOKEN); unset: `/metrics` answers 404. */
  readonly metricsToken?: string;
  /** The health gate's settings (ROLLOUT_*): the Rollouts tab draws its threshold and soak. */
  readonly rollouts: RolloutSettings;
  readonly limits: {
    readonly maxApkBytes: number;
    readonly uploadWaitTimeoutMs: number;
    /** Devices report every so many seconds (HEARTBEAT_SECONDS). */
    readonly heartbeatSeconds: number;
    /** Largest exception report body (MAX_EXCEPTION_BYTES); unset: 2 MiB. */
    readonly maxExceptionBytes?: number;
    /** Bounds on upload intake beyond MAX_APK_BYTES (UPLOAD_* settings). */
    readonly uploads: UploadLimits;
  };
}
