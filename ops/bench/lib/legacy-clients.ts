/**
 * Simulated PushLink SDK devices for the legacy push benchmark: a lean variant of the replay
 * client (device-client/node/pushlink-replay.ts) that holds thousands of TLS sockets per process,
 * writes SDK 5.6.0's subscribe line (its `subscribeLine`) and keeps only the arrival time of the
 * first `mt 0` line, on the system-wide monotonic clock like lib/fanout-clients.ts. Spread over a
 * few forked processes that obey `ClientFleet`'s commands, so the fan-out rounds
 * (lib/fanout-rounds.ts) measure both the same way: whatever event is collected, here it is the
 * first `{"mt":"0",...}` line.
 *
 * The connect command's `url` names the listener and the subscribe fields:
 * `pushlink://127.0.0.1:<port>/?package=<package>&hash=<installed md5>`. The server answers an
 * up-to-date subscribe with nothing, so each device writes a probe line (`{}`, not a subscribe)
 * right after it: lines of a socket are handled in order, so the probe's `mt 1` answer means the
 * subscribe was handled and the socket attached; that answer is when the device counts as
 * connected.
 */
import path from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { subscribeLine } from '../../../device-client/node/pushlink-replay';
import {
  ClientFleet,
  connectAll,
  nowMs,
  type Command,
  type ConnectCommand,
  type Reply,
} from './fanout-clients';

/**
 * Heartbeat interval the simulated SDK announces (the protocol admits up to 86,400 s): the server
 * then keeps a silent socket for five of them, so the bench sends no heartbeats, as the SSE
 * clients send nothing while their streams idle. (Until 2026-11-26 every socket sent `\n` every
 * 5 s until the fan-out: the listener used to close a socket whose subscribe waited 20 s for the
 * database, fixed in da0c099. Those beats, 2,000 lines/s at 10,000 sockets, each a Redis write at
 * most once a second per socket, ran through the connect phase and the memory readings, which the
 * SSE side took with silent streams.)
 */
const ANNOUNCED_HEARTBEAT_S = 3_600;
/** A line that is not a subscribe: answered with an `mt 1` text once the lines before it are. */
const PROBE = '{}\n';

interface Device {
  readonly socket: TLSSocket;
  firstApk: { at: number; bytes: number } | null;
  ended: boolean;
  /** The last `mt 1` text the server sent (why a socket was closed, when it says so). */
  lastText: string;
}

/** The subscribe line a simulated device sends (SDK 5.6.0's, from the replay client). */
export function benchSubscribeLine(
  c: Pick<ConnectCommand, 'apiKey'>,
  pkg: string,
  hash: string,
  deviceId: string,
): string {
  return subscribeLine({
    apiKey: c.apiKey,
    package: pkg,
    deviceId,
    hash,
    heartbeatSeconds: ANNOUNCED_HEARTBEAT_S,
  });
}

function openDevice(c: ConnectCommand, deviceId: string, wake: () => void): Promise<Device> {
  const target = new URL(c.url);
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: target.hostname,
      port: Number(target.port),
      ca: c.ca,
      servername: c.servername,
    });
    const device: Device = { socket, firstApk: null, ended: false, lastText: '' };
    const timer = setTimeout(() => fail(new Error('no answer to the probe in time')), c.timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      const pkg = target.searchParams.get('package') ?? '';
      const hash = target.searchParams.get('hash') ?? '';
      socket.write(benchSubscribeLine(c, pkg, hash, deviceId) + PROBE);
    });
    const attached = () => {
      clearTimeout(timer);
      socket.off('error', fail);
      socket.on('error', () => undefined);
      resolve(device);
    };
    let buffered = '';
    let probed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      const at = nowMs();
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith('{"mt":"1"')) device.lastText = textOf(line);
        if (line.startsWith('{"mt":"1"') && !probed) {
          probed = true;
          attached();
        } else if (device.firstApk === null && line.startsWith('{"mt":"0"')) {
          device.firstApk = { at, bytes: Buffer.byteLength(line) };
          wake();
        }
      }
    });
    socket.once('close', () => {
      device.ended = true;
      wake();
    });
  });
}

function textOf(line: string): string {
  try {
    return String((JSON.parse(line) as { msg?: unknown }).msg);
  } catch {
    return line;
  }
}

/**
 * Says on stderr why sockets were closed before the fan-out: grouped by the last `mt 1` text the
 * server sent each (the probe's answer, when the server closed it without saying why).
 */
function reportClosed(devices: readonly Device[]): void {
  const why = new Map<string, number>();
  for (const d of devices) {
    if (d.ended && d.firstApk === null) why.set(d.lastText, (why.get(d.lastText) ?? 0) + 1);
  }
  for (const [text, n] of why) {
    process.stderr.write(`legacy clients: ${n} sockets closed, last server text: ${text}\n`);
  }
}

async function collectAll(devices: readonly Device[], timeoutMs: number, onWake: WakeSlot) {
  const deadline = Date.now() + timeoutMs;
  const done = () => devices.every((d) => d.firstApk !== null || d.ended);
  while (!done() && Date.now() < deadline) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
      onWake.set(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
  reportClosed(devices);
  const hits = devices.flatMap((d) => (d.firstApk ? [d.firstApk] : []));
  return {
    kind: 'times' as const,
    times: hits.map((h) => h.at),
    missing: devices.length - hits.length,
    sampleBytes: hits[0]?.bytes ?? 0,
    dropped: devices.filter((d) => d.ended).length,
  };
}

interface WakeSlot {
  set(fn: () => void): void;
}

/** The body of a client process: obeys the parent's commands until told to disconnect. */
function runChild(): void {
  let devices: Device[] = [];
  let wake: () => void = () => undefined;
  const slot: WakeSlot = { set: (fn) => (wake = fn) };
  const send = (reply: Reply) => process.send?.(reply);
  process.on('message', (cmd: Command) => {
    void (async () => {
      if (cmd.kind === 'connect') {
        const open = (id: string) => openDevice(cmd, id, () => wake());
        send(await connectAll(cmd, open, devices));
      } else if (cmd.kind === 'collect') {
        send(await collectAll(devices, cmd.timeoutMs, slot));
      } else {
        for (const d of devices) d.socket.destroy();
        devices = [];
        send({ kind: 'disconnected' });
      }
    })();
  });
  process.on('disconnect', () => process.exit(0));
}

/** The client processes of N PushLink devices (`ClientFleet` over this module). */
export function startLegacyFleet(processes: number): ClientFleet {
  return ClientFleet.start(processes, path.join(__dirname, 'legacy-clients.js'));
}

if (require.main === module && process.argv.includes('--child')) runChild();
