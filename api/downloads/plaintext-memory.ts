/**
 * The APKs devices are fetching right now, decrypted once and held in this process's memory, so a
 * download is slices of one Buffer instead of a decryption per request (docs/downloads.md,
 * "Download memory"). What holds:
 * - Bounded by `maxBytes` (DOWNLOAD_MEMORY_MB): the least recently served APKs are dropped first;
 *   an APK larger than the bound is never held (it is streamed and decrypted per request).
 * - Every tag is checked before any of the plaintext is kept or served (decrypt-whole.ts): a
 *   damaged stored segment anywhere fails every request for that APK, and a damaged local copy
 *   of the ciphertext (blob-cache.ts, the tier below) is dropped.
 * - Concurrent first requests for one APK share one read and one decryption.
 * - Memory only: the plaintext is never written to disk here.
 */
import type { ApkDoc } from '../../shared/catalog/types';
import { decryptWhole } from '../../shared/crypto/decrypt-whole';
import { unwrapDataKey } from '../../shared/crypto/data-keys';
import type { KeyRing } from '../../shared/crypto/keys';
import { SegmentAuthError, ciphertextSize } from '../../shared/crypto/segmented-aead';
import type { BlobStore } from '../../shared/storage/blob-store';

export interface PlaintextMemory {
  /** The APK's whole plaintext, every tag verified; null when it is larger than the bound. */
  plaintext(apk: ApkDoc): Promise<Buffer | null>;
}

export interface PlaintextMemoryOptions {
  readonly maxBytes: number;
  readonly blobs: BlobStore;
  readonly keys: KeyRing;
}

export function plaintextMemory(o: PlaintextMemoryOptions): PlaintextMemory {
  /** Held APKs by blob id, least recently served first (a Map keeps insertion order). */
  const held = new Map<string, Buffer>();
  const loading = new Map<string, Promise<Buffer>>();
  let heldBytes = 0;

  async function load(apk: ApkDoc): Promise<Buffer> {
    const key = unwrapDataKey(o.keys, apk.wrappedKey, apk.blobId);
    const cipher = o.blobs.openRange(apk.blobId, 0, ciphertextSize(apk.size));
    try {
      const prefix = Buffer.from(apk.noncePrefix, 'base64');
      return await decryptWhole(key, prefix, cipher as AsyncIterable<Buffer>, apk.size);
    } catch (err) {
      if (err instanceof SegmentAuthError) await o.blobs.discardCopy?.(apk.blobId).catch(() => 0);
      throw err;
    } finally {
      (cipher as { destroy?: () => void }).destroy?.();
    }
  }

  function keep(id: string, bytes: Buffer): void {
    if (held.has(id)) return;
    held.set(id, bytes);
    heldBytes += bytes.length;
    for (const [oldest, old] of held) {
      if (heldBytes <= o.maxBytes) break;
      held.delete(oldest);
      heldBytes -= old.length;
    }
  }

  return {
    async plaintext(apk) {
      if (apk.size > o.maxBytes) return null;
      const hit = held.get(apk.blobId);
      if (hit) {
        held.delete(apk.blobId); // most recently served: to the end of the order
        held.set(apk.blobId, hit);
        return hit;
      }
      let pending = loading.get(apk.blobId);
      if (!pending) {
        pending = load(apk).finally(() => loading.delete(apk.blobId));
        loading.set(apk.blobId, pending);
      }
      const bytes = await pending;
      keep(apk.blobId, bytes);
      return bytes;
    },
  };
}
