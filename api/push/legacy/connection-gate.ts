/**
 * The PushLink listener's admission of connections (docs/pushlink-sdk.md#bounds): at most
 * LEGACY_PUSH_MAX_CONNECTIONS open in total, and at most LEGACY_PUSH_MAX_PENDING_PER_ADDRESS of
 * one client address (IPv6 by /64) that have not subscribed yet. Subscribed devices do not count
 * against their address: a fleet behind one NAT shares it. Pure bookkeeping; the listener asks
 * on every new TCP connection (before any TLS work) and tells it of subscriptions and closes.
 */
import { addressBucket } from '../../../shared/accounts/auth-throttle';

export type Refusal = 'total' | 'address';

export interface GateLimits {
  readonly maxConnections: number;
  /** 0: not limited (behind a TLS-terminating proxy every connection has the proxy's address). */
  readonly maxPendingPerAddress: number;
}

export interface Admitted {
  /** The connection subscribed: it no longer counts against its address. */
  subscribed(): void;
  /** The connection closed. */
  closed(): void;
}

export class ConnectionGate {
  private open = 0;
  private readonly pending = new Map<string, number>();

  constructor(private readonly limits: GateLimits) {}

  /** Admits a connection from `address`, or says which bound refuses it. */
  admit(address: string): Admitted | Refusal {
    if (this.open >= this.limits.maxConnections) return 'total';
    const bucket = addressBucket(address);
    const waiting = this.pending.get(bucket) ?? 0;
    if (this.limits.maxPendingPerAddress > 0 && waiting >= this.limits.maxPendingPerAddress) {
      return 'address';
    }
    this.open += 1;
    this.pending.set(bucket, waiting + 1);
    let pending = true;
    let open = true;
    const leavePending = () => {
      if (!pending) return;
      pending = false;
      const n = (this.pending.get(bucket) ?? 1) - 1;
      if (n > 0) this.pending.set(bucket, n);
      else this.pending.delete(bucket);
    };
    return {
      subscribed: leavePending,
      closed: () => {
        leavePending();
        if (open) this.open -= 1;
        open = false;
      },
    };
  }
}
