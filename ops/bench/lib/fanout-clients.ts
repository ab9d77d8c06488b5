/**
 * Simulated devices for the fan-out benchmark: raw server-sent-event clients over HTTPS, or plain
 * HTTP when the stream URL is http:// (one keep-alive agent per client process, made for the URL's
 * protocol: lib/transport.ts), spread over a few forked processes so the client side is
 * not the bottleneck. Each process holds its share of the streams and records, on the system-wide
 * monotonic clock (process.hrtime, CLOCK_MONOTONIC, comparable across processes), when each stream
 * received its `version` event. The parent drives them through IPC (`ClientFleet`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Agent } from 'node:http';
import path from 'node:path';
import { agentFor, request } from './transport';

export interface ConnectCommand {
  /** Stream URL without the deviceId parameter, e.g. https://127.0.0.1:p/api/v2/stream?package=x */
  readonly url: string;
  /** HTTPS only (ignored for http:// URLs). */
  readonly servername: string;
  readonly ca: string;
  readonly apiKey: string;
  readonly deviceIds: readonly string[];
  readonly concurrency: number;
  /** Per stream: its `status` event must come within this. */
  readonly timeoutMs: number;
  /** Whole connect phase: no new stream is opened after this (epoch ms). */
  readonly deadline: number;
}

/** What the parent tells a client process (lib/legacy-clients.ts obeys the same ones). */
export type Command =
  | ({ kind: 'connect' } & ConnectCommand)
  | { kind: 'collect'; event: string; timeoutMs: number }
  | { kind: 'disconnect' };

export type Reply =
  | { kind: 'connected'; ok: number; failed: number; firstError: string | null }
  | { kind: 'times'; times: number[]; missing: number; sampleBytes: number; dropped: number }
  | { kind: 'disconnected' };

export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

interface Stream {
  destroy(): void;
  /** Arrival time of the first event of each name after the connection. */
  readonly seen: Map<string, { at: number; bytes: number }>;
  ended: boolean;
}

/** Opens one stream; resolves once its first `status` event arrived. */
function openStream(c: ConnectCommand, agent: Agent, deviceId: string, wake: () => void) {
  return new Promise<Stream>((resolve, reject) => {
    const url = `${c.url}&deviceId=${encodeURIComponent(deviceId)}`;
    const headers = { accept: 'text/event-stream', authorization: `Bearer ${c.apiKey}` };
    const timer = setTimeout(() => fail(new Error('no status event in time')), c.timeoutMs);
    const stream: Stream = { destroy: () => req.destroy(), seen: new Map(), ended: false };
    const fail = (err: Error) => {
      clearTimeout(timer);
      req.destroy();
      reject(err);
    };
    const req = request(url, { agent, ca: c.ca, servername: c.servername, headers }, (res) => {
      if (res.statusCode !== 200) return fail(new Error(`HTTP ${res.statusCode ?? 0}`));
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = nowMs();
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: ?(.*)$/m.exec(block)?.[1];
          const data = /^data: ?(.*)$/m.exec(block)?.[1];
          if (name === undefined || data === undefined || stream.seen.has(name)) continue;
          stream.seen.set(name, { at, bytes: Buffer.byteLength(data) });
          if (name === 'status') {
            clearTimeout(timer);
            resolve(stream);
          }
          wake();
        }
      });
      const ended = () => {
        stream.ended = true;
        wake();
      };
      res.on('end', ended);
      res.on('close', ended);
      res.on('error', () => undefined);
    });
    req.on('error', fail);
    req.end();
  });
}

/**
 * Opens the command's connections, `concurrency` at a time, into `into` (lib/legacy-clients.ts
 * uses it too); counts the ones that failed or came after the connect phase's deadline.
 */
export async function connectAll<T>(
  cmd: ConnectCommand,
  open: (deviceId: string) => Promise<T>,
  into: T[],
): Promise<Extract<Reply, { kind: 'connected' }>> {
  let next = 0;
  let failed = 0;
  let firstError: string | null = null;
  const worker = async () => {
    for (let i = next++; i < cmd.deviceIds.length; i = next++) {
      if (Date.now() > cmd.deadline) {
        failed++;
        firstError ??= 'connect phase deadline passed';
        continue;
      }
      try {
        into.push(await open(cmd.deviceIds[i]!));
      } catch (err) {
        failed++;
        firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: cmd.concurrency }, worker));
  return { kind: 'connected', ok: into.length, failed, firstError };
}

/** The body of a client process: obeys the parent's commands until told to disconnect. */
function runChild(): void {
  // Made at the first connect, for its URL's protocol; replaced after each disconnect.
  let agent: Agent | undefined;
  let streams: Stream[] = [];
  let wake: () => void = () => undefined;
  const send = (reply: Reply) => process.send?.(reply);
  process.on('message', (cmd: Command) => {
    void (async () => {
      if (cmd.kind === 'connect') {
        const streamAgent = (agent ??= agentFor(cmd.url, {
          keepAlive: true,
          maxSockets: Infinity,
        }));
        const open = (id: string) => openStream(cmd, streamAgent, id, () => wake());
        send(await connectAll(cmd, open, streams));
      } else if (cmd.kind === 'collect') {
        const deadline = Date.now() + cmd.timeoutMs;
        const done = () => streams.every((s) => s.seen.has(cmd.event) || s.ended);
        while (!done() && Date.now() < deadline) {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
            wake = () => {
              clearTimeout(t);
              resolve();
            };
          });
        }
        const hits = streams.flatMap((s) => {
          const hit = s.seen.get(cmd.event);
          return hit ? [hit] : [];
        });
        send({
          kind: 'times',
          times: hits.map((h) => h.at),
          missing: streams.length - hits.length,
          sampleBytes: hits[0]?.bytes ?? 0,
          dropped: streams.filter((s) => s.ended).length,
        });
      } else {
        for (const s of streams) s.destroy();
        streams = [];
        agent?.destroy();
        agent = undefined;
        send({ kind: 'disconnected' });
      }
    })();
  });
  process.on('disconnect', () => process.exit(0));
}

export interface Collected {
  readonly times: number[];
  readonly missing: number;
  readonly dropped: number;
  readonly sampleBytes: number;
}

/** The parent's handle on the client processes. */
export class ClientFleet {
  private constructor(private readonly children: ChildProcess[]) {}

  /** `file`: the client module (default: these SSE clients; lib/legacy-clients.js: PushLink). */
  static start(processes: number, file = path.join(__dirname, 'fanout-clients.js')): ClientFleet {
    return new ClientFleet(
      Array.from({ length: processes }, () =>
        fork(file, ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
      ),
    );
  }

  get pids(): number[] {
    return this.children.map((c) => c.pid ?? -1);
  }

  private ask<K extends Reply['kind']>(
    child: ChildProcess,
    cmd: Command,
    kind: K,
  ): Promise<Extract<Reply, { kind: K }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`client process exited (${code})`));
      const onMessage = (reply: Reply) => {
        if (reply.kind !== kind) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(reply as Extract<Reply, { kind: K }>);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(cmd);
    });
  }

  /** Connects the devices, dealt round-robin over the processes; fails unless all connected. */
  async connect(c: ConnectCommand): Promise<void> {
    const n = this.children.length;
    const replies = await Promise.all(
      this.children.map((child, i) =>
        this.ask(
          child,
          {
            kind: 'connect',
            ...c,
            deviceIds: c.deviceIds.filter((_, j) => j % n === i),
            concurrency: Math.max(1, Math.ceil(c.concurrency / n)),
          },
          'connected',
        ),
      ),
    );
    const failed = replies.reduce((s, r) => s + r.failed, 0);
    if (failed > 0) {
      const why = replies.find((r) => r.firstError)?.firstError ?? '?';
      throw new Error(`${failed} of ${c.deviceIds.length} streams failed to connect: ${why}`);
    }
  }

  /** Waits (bounded) until every stream got `event`; arrival times on the monotonic clock. */
  async collect(event: string, timeoutMs: number): Promise<Collected> {
    const replies = await Promise.all(
      this.children.map((child) => this.ask(child, { kind: 'collect', event, timeoutMs }, 'times')),
    );
    return {
      times: replies.flatMap((r) => r.times),
      missing: replies.reduce((s, r) => s + r.missing, 0),
      dropped: replies.reduce((s, r) => s + r.dropped, 0),
      sampleBytes: replies.find((r) => r.sampleBytes > 0)?.sampleBytes ?? 0,
    };
  }

  async disconnect(): Promise<void> {
    await Promise.all(
      this.children.map((c) => this.ask(c, { kind: 'disconnect' }, 'disconnected')),
    );
  }

  /** Ends the processes (idempotent). */
  stop(): void {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill();
  }
}

if (require.main === module && process.argv.includes('--child')) runChild();
