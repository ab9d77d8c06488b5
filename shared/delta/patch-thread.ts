/**
 * The body of a patch generation thread (build-off-thread.ts starts it): builds one patch, of
 * ARDELTA1 (build-patch.ts) or ARDELTA2 (build-patch2.ts, its entry recompression search
 * included), from the two APKs the worker process shares with it (SharedArrayBuffers: not copied),
 * and posts the result back once, the patch's memory transferred, not copied. Any throw ends the
 * thread with an `error` event; the main side names the pair and format.
 */
import { isArrayBuffer } from 'node:util/types';
import { parentPort, workerData } from 'node:worker_threads';
import { PayloadInvalid } from '../errors';
import { buildPatch } from './build-patch';
import { buildPatch2 } from './build-patch2';

/** What the main side hands the thread. */
export interface PatchThreadInput {
  readonly format: 1 | 2;
  readonly old: Uint8Array;
  readonly target: Uint8Array;
}

/** What the thread posts back: the patch (null: none for the pair) and ARDELTA2's counts. */
export interface PatchThreadResult {
  readonly patch: Uint8Array | null;
  readonly changed: number;
  readonly reproduced: number;
}

/** `bytes` in an ArrayBuffer of their own, to transfer (a pooled or larger buffer is copied). */
function transferable(bytes: Buffer): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && isArrayBuffer(bytes.buffer) ? bytes : Uint8Array.prototype.slice.call(bytes);
}

async function build(input: PatchThreadInput): Promise<PatchThreadResult | null> {
  if (input.format !== 1 && input.format !== 2) {
    throw new PayloadInvalid('patch thread', `unknown patch format ${String(input.format)}`);
  }
  if (input.format === 1) {
    return { patch: transferable(buildPatch(input.old, input.target)), changed: 0, reproduced: 0 };
  }
  const made = await buildPatch2(input.old, input.target);
  if (made === null) return null;
  const patch = made.patch === null ? null : transferable(made.patch);
  return { patch, changed: made.changed, reproduced: made.reproduced };
}

async function main(port: NonNullable<typeof parentPort>): Promise<void> {
  const result = await build(workerData as PatchThreadInput);
  const transfer = result?.patch ? [result.patch.buffer as ArrayBuffer] : [];
  port.postMessage(result, transfer);
}

if (parentPort !== null) {
  // A rejection here is unhandled: Node ends the thread with an `error` event carrying it.
  void main(parentPort);
}
