/**
 * A whole-stream hash computed on a worker thread, so a slow digest (MD5) runs in parallel with
 * the digests computed on the main thread during the single streaming pass. At most a few
 * chunks are in flight (bounded memory); `close()` always ends the worker.
 * The chunks' buffers go back and forth: the thread hands each one back once hashed and the next
 * chunk is copied into it. A fresh buffer per chunk was the file's size in garbage on the thread,
 * which its V8 collects only after about 64 MiB of it (the ingest worker's memory,
 * docs/benchmarks.md#upload-ingest).
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** A whole-stream hash fed chunk by chunk, on this thread or another. */
export interface StreamHash {
  update(chunk: Buffer): Promise<void>;
  digest(): Promise<string>;
  close(): Promise<void>;
}

/** Same interface, on the calling thread (for small inputs, where a worker costs more). */
export function localHash(algorithm: string): StreamHash {
  const hash = createHash(algorithm);
  return {
    update: (chunk) => {
      hash.update(chunk);
      return Promise.resolve();
    },
    digest: () => Promise.resolve(hash.digest('hex')),
    close: () => Promise.resolve(),
  };
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hash = createHash(workerData.algorithm);
parentPort.on('message', (chunk) => {
  if (chunk === null) parentPort.postMessage(hash.digest('hex'));
  else { hash.update(chunk); parentPort.postMessage(chunk, [chunk.buffer]); }
});
`;
const MAX_IN_FLIGHT = 4;

export class OffThreadHash implements StreamHash {
  private readonly worker: Worker;
  private inFlight = 0;
  /** Buffers the thread handed back, to copy the next chunks into. */
  private readonly spare: ArrayBuffer[] = [];
  private made = 0;
  private wake: (() => void) | null = null;
  private result: string | null = null;
  private failure: Error | null = null;

  constructor(algorithm: string) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { algorithm } });
    this.worker.unref();
    this.worker.on('message', (m: unknown) => {
      if (typeof m === 'string') this.result = m;
      else {
        if (m instanceof Uint8Array) this.spare.push(m.buffer as ArrayBuffer);
        this.inFlight--;
      }
      this.wake?.();
    });
    this.worker.on('error', (err: Error) => {
      this.failure = err;
      this.wake?.();
    });
  }

  private async waitUntil(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
    if (this.failure) throw this.failure;
  }

  async update(chunk: Buffer): Promise<void> {
    await this.waitUntil(() => this.inFlight < MAX_IN_FLIGHT);
    this.inFlight++;
    // Copy into a buffer of its own and transfer it: posting a view would clone its whole
    // backing ArrayBuffer (e.g. an entire in-memory APK).
    let buffer = this.spare.pop();
    if (buffer === undefined || buffer.byteLength < chunk.length) {
      buffer = new ArrayBuffer(chunk.length);
      this.made++;
    }
    const copy = new Uint8Array(buffer, 0, chunk.length);
    copy.set(chunk);
    this.worker.postMessage(copy, [buffer]);
  }

  /** How many chunk buffers this hash allocated: at most the chunks in flight, not one a chunk. */
  get buffersMade(): number {
    return this.made;
  }

  async digest(): Promise<string> {
    this.worker.postMessage(null);
    await this.waitUntil(() => this.result !== null);
    return this.result ?? '';
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
