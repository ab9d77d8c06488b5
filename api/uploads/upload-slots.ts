/**
 * Bounds on uploads received at once by this API process: per client address bucket (IPv6 by
 * its /64, as the failed-auth throttle groups them) and in all. Counted in memory, so the bounds
 * are per API process; a crashed process takes its counts with it, so nothing can leak a slot.
 */
import { addressBucket } from '../../shared/accounts/auth-throttle';

/** Gives a slot back (idempotent). */
export type ReleaseSlot = () => void;

export interface UploadSlots {
  /** A slot for an upload from `address`, or which bound refused it. */
  acquire(address: string): ReleaseSlot | 'address-busy' | 'busy';
  /** Slots held now: uploads this process is receiving (the metric apkrelay_uploads_receiving). */
  held(): number;
}

/** Seconds a refused client is told to wait (Retry-After). */
export const UPLOAD_SLOT_RETRY_SECONDS = 5;

export function uploadSlots(bounds: { readonly perAddress: number; readonly total: number }) {
  const byAddress = new Map<string, number>();
  let total = 0;
  const slots: UploadSlots = {
    acquire(address) {
      const bucket = addressBucket(address);
      const mine = byAddress.get(bucket) ?? 0;
      if (mine >= bounds.perAddress) return 'address-busy';
      if (total >= bounds.total) return 'busy';
      byAddress.set(bucket, mine + 1);
      total++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total--;
        const left = (byAddress.get(bucket) ?? 1) - 1;
        if (left > 0) byAddress.set(bucket, left);
        else byAddress.delete(bucket);
      };
    },
    held: () => total,
  };
  return slots;
}
