/**
 * SSE devices that reconnect as a device does: when its stream ends (the process behind the proxy
 * died or stopped), a device connects again at once with its Last-Event-ID, as many times as it
 * takes, while `reconnecting` is on. Each outage is timed from the end of a stream to the `status`
 * event that opens the next one that answers.
 */
import type { SseClient } from './sse';

export class SseFleet {
  /** Each device's latest stream. */
  readonly current = new Map<string, SseClient>();
  /** Every stream opened by a reconnect. */
  readonly reopened: SseClient[] = [];
  /** Milliseconds each outage lasted, in the order they ended. */
  readonly outages: number[] = [];
  reconnecting = false;
  private readonly down = new Map<string, number>();
  private readonly all: SseClient[] = [];

  constructor(private readonly connect: (deviceId: string, lastEventId?: string) => SseClient) {}

  open(deviceId: string, lastEventId?: string): SseClient {
    const stream = this.connect(deviceId, lastEventId);
    this.all.push(stream);
    this.current.set(deviceId, stream);
    void stream.next('status', 60_000).then(
      () => {
        const since = this.down.get(deviceId);
        if (since === undefined) return;
        this.outages.push(Date.now() - since);
        this.down.delete(deviceId);
      },
      () => undefined, // ended first: the next stream's status ends the outage
    );
    void stream.closed.then((at) => {
      if (!this.reconnecting) return;
      if (!this.down.has(deviceId)) this.down.set(deviceId, at);
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
