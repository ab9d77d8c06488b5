/**
 * SSE devices that reconnect as a device does: when its stream ends (the process behind the proxy
 * died or stopped), a device connects again at once with its Last-Event-ID, as many times as it
 * takes, while `reconnecting` is on. Each outage is counted in connection attempts, from the end
 * of a stream to the `status` event that opens the next one that answers: a real device waits its
 * retry (2-5 s) before each, so one attempt is an outage no longer than that wait, whatever the
 * machine's load.
 */
import type { SseClient } from './sse';

export class SseFleet {
  /** Each device's latest stream. */
  readonly current = new Map<string, SseClient>();
  /** Every stream opened by a reconnect. */
  readonly reopened: SseClient[] = [];
  /** The connection attempts each outage took, in the order they ended. */
  readonly outages: number[] = [];
  reconnecting = false;
  /** Attempts so far of each device whose stream ended. */
  private readonly down = new Map<string, number>();
  private readonly all: SseClient[] = [];

  constructor(private readonly connect: (deviceId: string, lastEventId?: string) => SseClient) {}

  open(deviceId: string, lastEventId?: string): SseClient {
    const stream = this.connect(deviceId, lastEventId);
    this.all.push(stream);
    this.current.set(deviceId, stream);
    void stream.next('status', 60_000).then(
      () => {
        const attempts = this.down.get(deviceId);
        if (attempts === undefined) return;
        this.outages.push(attempts);
        this.down.delete(deviceId);
      },
      () => undefined, // ended first: the next stream's status ends the outage
    );
    void stream.closed.then(() => {
      if (!this.reconnecting) return;
      this.down.set(deviceId, (this.down.get(deviceId) ?? 0) + 1);
      this.reopened.push(this.open(deviceId, stream.lastEventId));
    });
    return stream;
  }

  /** Devices whose stream ended and has no successor with a `status` yet. */
  get devicesDown(): number {
    return this.down.size;
  }

  async close(): Promise<void> {
    this.reconnecting = false;
    await Promise.all(this.all.map((s) => s.close()));
  }
}
