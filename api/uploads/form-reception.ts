/**
 * One upload form being received: a small state machine driven by the parser's and the request's
 * events. Its states, and what moves them:
 *
 * - `form`: `receiving` (the body flows into the parser, waits paused for the key check, or is
 *   discarded after a halt) → `settling` (the parser closed, failed or was halted, or the client
 *   aborted: the apk part and the key check are awaited, then the outcome is resolved once).
 * - `key`: `unasked` → `asked` (with the first key field, or the form's end; the check's promise
 *   never rejects: a refusal sets `failure`). A request the caller authenticated already starts
 *   `asked`, settled.
 * - `apk`: `none` → `held` (the key not asked yet: in memory, then in a private spool file,
 *   pre-auth-hold.ts; stored once the key is accepted, discarded at once otherwise), or `none` →
 *   `storing` (after the key check).
 * - `failure`: the first reason to refuse the form; once set, nothing more is stored and what
 *   was stored is deleted.
 */
import { isUtf8 } from 'node:buffer';
import type busboy from 'busboy';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../shared/storage/blob-store';
import { closeAfterReply } from '../close-after-reply';
import { isDependencyOutage } from '../http-errors';
import { watchBodyProgress } from './body-progress';
import { storeEncrypted } from './file-part';
import { holdBeforeKey, type HeldFile } from './pre-auth-hold';
import type { ReceiveOptions, Received, ReceivedFile, Refusal } from './received';
import { AppError, coerceError } from '../../shared/errors';

export const FIELD_LIMITS = { fields: 32, fieldSize: 64 * 1024, parts: 40, headerPairs: 64 };

const KEY_FIELDS = ['apiKey', 'api_key'];

type FormState = 'receiving' | 'settling';

type KeyCheck =
  | { readonly state: 'unasked' }
  /** `settled` resolves once the key was checked (never rejects). */
  | { readonly state: 'asked'; readonly settled: Promise<void> };

type ApkPart =
  | { readonly state: 'none' }
  | { readonly state: 'held'; readonly part: Promise<HeldFile> }
  | { readonly state: 'storing'; readonly part: Promise<ReceivedFile | null> };

/** Reasons the receiver itself refuses a form for, at once. */
type AbortReason = 'malformed' | 'too-large' | 'repeated-file' | 'too-slow' | 'spool-full';

/**
 * Busboy decodes text as latin1 (the default for parameters; set for values too), so the bytes
 * can be checked: names, values and filenames must be UTF-8. Text a part declared another charset
 * for is already decoded; a replacement character there means bytes were lost.
 */
function utf8(text: string): string | null {
  if (/[\u0100-\uffff]/.test(text)) return text.includes('\ufffd') ? null : text;
  const bytes = Buffer.from(text, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

export class FormReception {
  private form: FormState = 'receiving';
  private key: KeyCheck;
  private apk: ApkPart = { state: 'none' };
  private failure: Refusal | null = null;
  private readonly fields = new Map<string, string>();
  private stopWatch: () => void = () => undefined;

  constructor(
    private readonly req: Request,
    private readonly parser: busboy.Busboy,
    private readonly blobs: BlobStore,
    private readonly options: ReceiveOptions,
    private readonly resolve: (received: Received) => void,
  ) {
    this.key = options.authenticate
      ? { state: 'unasked' }
      : { state: 'asked', settled: Promise.resolve() };
  }

  /** Wires the events and starts reading the body. */
  start(): void {
    const { parser, req, options } = this;
    parser.on('field', (name, value, info) => this.onField(name, value, info));
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      parser.on(limit, () =>
        this.abort('malformed', `the form has too many parts (at most ${FIELD_LIMITS.parts})`),
      );
    }
    parser.on('file', (name, stream, info) => this.onFile(name, stream, info));
    parser.on('close', () => void this.settle());
    parser.on('error', (err: Error) => this.onParserError(err));
    req.on('aborted', () => this.onAborted());
    const { progress } = options;
    if (progress) {
      this.stopWatch = watchBodyProgress(req, progress, () =>
        this.abort(
          'too-slow',
          `the upload was too slow (fewer than ${progress.minBytes} bytes in ${progress.windowMs} ms)`,
        ),
      );
    }
    req.pipe(parser);
  }

  private onField(rawName: string, rawValue: string, info: busboy.FieldInfo): void {
    const name = utf8(rawName);
    const value = utf8(rawValue);
    if (name === null || value === null) {
      this.abort('malformed', 'the form is not valid UTF-8');
    } else if (info.nameTruncated || info.valueTruncated) {
      this.abort(
        'malformed',
        `the field ${name.slice(0, 64)} is longer than ${FIELD_LIMITS.fieldSize} bytes`,
      );
    } else if (!this.fields.has(name)) {
      this.fields.set(name, value);
      if (KEY_FIELDS.includes(name) && !this.failure) void this.checkKey(value);
    }
  }

  private onFile(rawName: string, stream: Readable, info: busboy.FileInfo): void {
    stream.on('error', () => undefined);
    const name = utf8(rawName);
    if (name === null || (info.filename !== undefined && utf8(info.filename) === null)) {
      stream.resume();
      this.abort('malformed', 'the form is not valid UTF-8');
      return;
    }
    if (name !== 'apk') {
      stream.resume();
      return;
    }
    if (this.apk.state !== 'none') {
      stream.resume();
      this.abort('repeated-file', 'the form carries more than one apk file');
      return;
    }
    const { maxApkBytes, authenticate } = this.options;
    stream.on('limit', () =>
      this.abort('too-large', `the APK is larger than ${maxApkBytes} bytes`),
    );
    if (this.key.state === 'asked') {
      this.apk = {
        state: 'storing',
        part: this.key.settled.then(() => this.storeAfterKey(stream)),
      };
    } else {
      // The key is unasked only when there is one to ask (the constructor).
      const part = holdBeforeKey(stream, authenticate!.hold).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'UPLOAD_SPOOL_FULL')
          this.abort('spool-full', err.message);
        throw err;
      });
      this.apk = { state: 'held', part };
    }
  }

  /** Stores the apk part once the key check settled, unless the form was refused. */
  private storeAfterKey(stream: Readable): Promise<ReceivedFile | null> | null {
    if (!this.failure) return this.store(stream);
    stream.resume();
    return null;
  }

  private store(source: Readable): Promise<ReceivedFile | null> {
    return storeEncrypted(this.blobs, source, () => this.failure !== null);
  }

  private onParserError(err: Error): void {
    const { req, parser } = this;
    this.failure ??= { ok: false, reason: 'malformed', detail: err.message };
    if (!req.complete) closeAfterReply(req);
    req.unpipe(parser);
    req.resume();
    void this.settle();
  }

  /** The client went away inside the form: drop the file part (and its blob) at once. */
  private onAborted(): void {
    this.failure ??= { ok: false, reason: 'malformed', detail: 'the client aborted the upload' };
    this.parser.destroy();
    void this.settle();
  }

  /** Refuses the form at once: stop parsing, drop the file part, discard the rest. */
  private abort(reason: AbortReason, detail: string): void {
    this.failure ??= { ok: false, reason, detail };
    this.halt();
  }

  /** Stops parsing and discards the rest of the body (the reply closes the connection). */
  private halt(): void {
    const { req, parser } = this;
    // Busboy goes on with its own state after emitting: destroy it once it has returned.
    process.nextTick(() => {
      req.unpipe(parser);
      if (req.complete) req.resume();
      else closeAfterReply(req);
      parser.destroy();
      void this.settle();
    });
  }

  /**
   * Asks the key check (once). The body is not read meanwhile: a file part that follows waits
   * unread, so nothing of it is stored or buffered before the key is known.
   */
  private checkKey(presented: string | undefined): Promise<void> {
    if (this.key.state === 'asked') return this.key.settled;
    const { req, parser } = this;
    const receiving = this.form === 'receiving';
    if (receiving) {
      req.unpipe(parser);
      req.pause();
    }
    const settled = this.options
      .authenticate!.check(presented)
      .then(() => {
        if (receiving && !this.failure) req.pipe(parser);
      })
      .catch((error: unknown) => {
        this.failure ??= { ok: false, reason: 'refused', error, detail: 'the API key was refused' };
        this.halt();
      });
    this.key = { state: 'asked', settled };
    return settled;
  }

  /** settling: the apk part, then the key, then a held file stored, then the outcome. */
  private async settle(): Promise<void> {
    if (this.form === 'settling') return;
    this.form = 'settling';
    this.stopWatch();
    let stored: ReceivedFile | HeldFile | null = null;
    let storeError: unknown;
    try {
      stored = this.apk.state === 'none' ? null : await this.apk.part;
    } catch (err) {
      storeError = err;
    }
    // A form that ended without a key is refused like a wrong key (and counted as one).
    if (!this.failure && storeError === undefined) await this.checkKey(undefined);
    else await (this.key.state === 'asked' ? this.key.settled : null);
    let kept: ReceivedFile | null;
    if (stored && 'discard' in stored) {
      kept = await this.storeHeld(stored).catch((err: unknown) => {
        storeError = err;
        return null;
      });
    } else {
      kept = stored;
    }
    this.resolve(await this.outcome(kept, storeError));
  }

  /** A held file: stored once its key was accepted; its memory and spool freed in every case. */
  private async storeHeld(held: HeldFile): Promise<ReceivedFile | null> {
    try {
      return this.failure ? null : await this.store(held.open());
    } finally {
      await held.discard();
    }
  }

  private async outcome(kept: ReceivedFile | null, storeError: unknown): Promise<Received> {
    if (this.failure) {
      if (kept) await this.blobs.delete(kept.uploadId).catch(() => undefined);
      return this.failure;
    }
    if (storeError !== undefined) {
      const reason = isDependencyOutage(storeError) ? 'unavailable' : 'malformed';
      return { ok: false, reason, detail: coerceError(storeError).message };
    }
    return { ok: true, fields: this.fields, file: kept };
  }
}
