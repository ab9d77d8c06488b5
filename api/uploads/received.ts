/**
 * What receiving an upload form yields (`receiveUpload`), and its options. Its own module so that
 * the receiver's parts (form-reception.ts, file-part.ts) share the types without an import cycle.
 */
import type { ProgressBounds } from './body-progress';
import type { HoldOptions } from './pre-auth-hold';

export interface ReceivedFile {
  readonly uploadId: string;
  readonly dataKey: Buffer;
  readonly noncePrefix: Buffer;
  readonly size: number;
}

export type Received =
  | {
      readonly ok: true;
      readonly fields: ReadonlyMap<string, string>;
      readonly file: ReceivedFile | null;
    }
  | {
      readonly ok: false;
      readonly reason:
        | 'not-multipart'
        | 'malformed'
        | 'too-large'
        | 'repeated-file'
        | 'unavailable'
        /** The body-progress deadline cut it (`progress`). */
        | 'too-slow'
        /** A file before its key would pass the spool's bound (UPLOAD_SPOOL_BYTES). */
        | 'spool-full';
      readonly detail: string;
    }
  | {
      /** `authenticate` refused the form's key (or its lack of one): `error` is what it threw. */
      readonly ok: false;
      readonly reason: 'refused';
      readonly error: unknown;
      readonly detail: string;
    };

export type Refusal = Extract<Received, { ok: false }>;

export interface ReceiveOptions {
  readonly maxApkBytes: number;
  /**
   * Checks the form's API key when the caller has not authenticated the request already: called
   * once, with the first `apiKey` (or `api_key`) field, or with undefined when the form ends
   * without one. It rejects to refuse the upload. Until it has resolved nothing of the file is
   * stored: a file that came first is held (pre-auth-hold.ts: `hold.memoryBytes` in memory, the
   * rest in a private spool file under `hold.spoolDir`); one that follows waits unread in the
   * socket.
   */
  readonly authenticate?: {
    readonly check: (presented: string | undefined) => Promise<void>;
    /** How a file that came before its key is held: bytes in memory, then where it spools. */
    readonly hold: HoldOptions;
  };
  /** The body-progress deadline (UPLOAD_PROGRESS_*); unset: none. */
  readonly progress?: ProgressBounds;
}
