/**
 * The one catalogue of error codes apkrelay speaks. Each code has an HTTP status and a default
 * message; `api/http-errors.ts` is the only place that turns an `AppError` into a reply. Codes are
 * stable (clients and tests match on them); messages are for people and may be improved.
 */
export const ERRORS = {
  VALIDATION_FAILED: { status: 400, message: 'The request is not valid.' },
  UNAUTHENTICATED: { status: 401, message: 'Missing or invalid credentials.' },
  FORBIDDEN: { status: 403, message: 'Not allowed.' },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  KEY_SCOPE_REFUSED: {
    status: 403,
    message:
      'This key or token may not call this route: device keys (and a restricted account key) only call the device routes, CI tokens only upload and make an APK current.',
  },
  KEY_APP_REFUSED: {
    status: 403,
    message: 'This key or token is not valid for this app.',
  },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed.' },
  ACCOUNT_EMAIL_TAKEN: { status: 409, message: 'An account with this email already exists.' },
  PLAN_FULL: {
    status: 409,
    message:
      'Every installation seat of the plan is taken: disable an installation first, or raise the plan.',
  },
  APK_INVALID: {
    status: 422,
    message:
      'Not a valid APK: Android would not install it (signatures, manifest, or a test-only build).',
  },
  APK_DUPLICATE: {
    status: 409,
    message: 'An APK with the same hash was already uploaded to this app.',
  },
  APK_SIGNER_MISMATCH: {
    status: 409,
    message:
      "The APK's signer does not match this app's signer, and no v3 lineage proves rotation from it.",
  },
  APK_TOO_LARGE: { status: 413, message: 'The APK is larger than the upload limit.' },
  APK_PACKAGE_MISMATCH: {
    status: 422,
    message: "The APK's package name is not the one in the request path.",
  },
  APK_PACKAGE_NAME_INVALID: {
    status: 422,
    message:
      "The APK's package name is not a valid Android package name (dot-separated segments of letters, digits and underscores, each starting with a letter).",
  },
  UPLOAD_FAILED: { status: 500, message: 'The upload could not be processed.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UPLOADS_PER_ADDRESS_BUSY: {
    status: 429,
    message: 'Too many uploads at once from this client address; retry after Retry-After.',
  },
  UPLOADS_BUSY: {
    status: 503,
    message: 'Too many uploads at once; retry after Retry-After.',
  },
  UPLOAD_SPOOL_FULL: {
    status: 503,
    message:
      'Too many upload bytes are waiting for their API key (UPLOAD_SPOOL_BYTES); retry after Retry-After, or send the key before the file.',
  },
  UPLOAD_TOO_SLOW: {
    status: 408,
    message: 'The upload body arrived too slowly and was cut; retry.',
  },
  EXCEPTION_API_KEY_INVALID: { status: 401, message: 'Exception rejected: invalid API key.' },
  EXCEPTION_PACKAGE_UNKNOWN: {
    status: 404,
    message: 'Exception rejected: no app of this package was uploaded.',
  },
  EXCEPTION_APK_HASH_UNKNOWN: {
    status: 422,
    message: 'Exception rejected: no uploaded APK has this hash.',
  },
  EXCEPTION_INSTALLATION_DISABLED: {
    status: 403,
    message: 'Exception rejected: the installation is disabled (beyond the plan).',
  },
  EXCEPTION_INSTALLATION_UNKNOWN: {
    status: 403,
    message: 'Exception rejected: this device id has no installation of this app; register first.',
  },
  EXCEPTION_INSTALLATION_REGISTERING: {
    status: 503,
    message: "Exception not taken yet: this device's registration is being written; retry shortly.",
  },
  EXCEPTION_LIMIT_REACHED: {
    status: 429,
    message: "Exception rejected: the app's 24-hour exception limit is reached.",
  },
  ROLLOUT_STATE_CONFLICT: {
    status: 409,
    message: 'The rollout is not in a state that allows this action.',
  },
  ROLLOUT_ACTIVE: {
    status: 409,
    message: 'A rollout of this app is running or paused: halt or complete it first.',
  },
  EXCEPTION_REPORT_INVALID: { status: 400, message: 'Exception rejected: malformed report.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests.' },
  AUTH_RATE_LIMITED: {
    status: 429,
    message: 'Too many failed authentications from this client or with this key; retry later.',
  },
  SIGNUP_RATE_LIMITED: {
    status: 429,
    message: 'Too many sign-ups from this client; retry later.',
  },
  DEVICE_REGISTRATIONS_RATE_LIMITED: {
    status: 429,
    message: 'Too many new devices for this key or app; retry after Retry-After.',
  },
  WEBHOOK_REDELIVERY_RATE_LIMITED: {
    status: 429,
    message: 'Too many redeliveries by hand for this account; retry after Retry-After.',
  },
  SIGNUP_CLOSED: {
    status: 403,
    message: 'Sign-up is closed: accounts are created by the operator.',
  },
  INVITATION_UNUSABLE: {
    status: 410,
    message: 'This invitation link was used, has expired or was revoked.',
  },
  INTERNAL: { status: 500, message: 'Internal error.' },
  WEBHOOK_TARGET_REFUSED: {
    status: 400,
    message: 'Webhook deliveries to this address are not allowed (WEBHOOK_ALLOW_PRIVATE).',
  },
  MASTER_KEY_MISSING: {
    status: 500,
    message: 'A stored value is sealed under a master key that is not configured.',
  },
  DEPENDENCY_UNAVAILABLE: {
    status: 503,
    message: 'A backing service is unavailable; retry later.',
  },
  STEP_DEADLINE_EXCEEDED: {
    status: 503,
    message: 'A call to Redis, the store or the network did not answer within its deadline.',
  },
  JOB_DEADLINE_EXCEEDED: {
    status: 503,
    message: 'The job ran past its time budget; it is retried like any failed attempt.',
  },
  // Internal codes: they name a failure for the log, a job's failure and the CLI; a client that
  // meets one is answered INTERNAL (api/http-errors.ts), as it was before they had a code.
  PAYLOAD_INVALID: {
    status: 500,
    message: 'A job payload, stored document or archive is not what its reader expects.',
    internal: true,
  },
  CONFIG_INVALID: { status: 500, message: 'The configuration is not valid.', internal: true },
  STORED_DATA_UNAUTHENTIC: {
    status: 500,
    message: 'Stored encrypted data failed authentication (tampered, truncated or a wrong key).',
    internal: true,
  },
  STORE_INCONSISTENT: {
    status: 500,
    message: 'A record vanished or changed under a write that needed it.',
    internal: true,
  },
  BLOB_INCOMPLETE: {
    status: 500,
    message: 'A stored blob is shorter than its record says.',
    internal: true,
  },
  LOCK_NOT_ACQUIRED: {
    status: 500,
    message: 'A lock was not acquired in time; the job is retried.',
    internal: true,
  },
  DELTA_GENERATION_FAILED: {
    status: 500,
    message: 'A delta patch generation thread failed or ended without a patch; the job is retried.',
    internal: true,
  },
  WEBHOOK_DELIVERY_FAILED: {
    status: 500,
    message: 'A webhook delivery was not accepted by its endpoint; it is retried.',
    internal: true,
  },
} as const satisfies Record<string, { status: number; message: string; internal?: true }>;

export type ErrorCode = keyof typeof ERRORS;

/** An internal code: never shown to a client as it is (a client sees INTERNAL). */
export function isInternalCode(code: ErrorCode): boolean {
  return 'internal' in ERRORS[code];
}

export interface AppErrorOptions {
  /** Replaces the catalogue's message (the spec's exact text where it gives one). */
  readonly message?: string;
  /** Safe, structured facts for the reply or the log (never secrets). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** The error this one explains: kept for the log, never sent to a client. */
  readonly cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(
    readonly code: ErrorCode,
    options: AppErrorOptions = {},
  ) {
    super(
      options.message ?? ERRORS[code].message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'AppError';
    this.status = ERRORS[code].status;
    if (options.details !== undefined) this.details = options.details;
  }
}

/**
 * A job payload, a stored document, an archive or a JSON body read by a worker that is not what
 * its reader expects: the one error of every such parse. `kind` names what was read (a queue's
 * name, `tar`, `backup`, `sealed value`), `reason` what is wrong with it.
 */
export class PayloadInvalid extends AppError {
  constructor(
    readonly kind: string,
    readonly reason: string,
  ) {
    super('PAYLOAD_INVALID', { message: `${kind}: ${reason}`, details: { kind, reason } });
    this.name = 'PayloadInvalid';
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/**
 * Any thrown value as an Error: an Error as it is, anything else wrapped and kept as the cause.
 * An Error of another realm (a vm context, as test runners use; the runtime's own fetch) fails
 * `instanceof Error` but is one: its brand says so, and it is not wrapped into "non-Error thrown".
 */
export function coerceError(value: unknown): Error {
  if (value instanceof Error || Object.prototype.toString.call(value) === '[object Error]') {
    return value as Error;
  }
  const text = typeof value === 'string' ? value : `non-Error thrown: ${String(value)}`;
  return new Error(text, { cause: value });
}
