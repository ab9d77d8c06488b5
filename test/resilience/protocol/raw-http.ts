/**
 * Raw HTTP/1.1 over TLS for protocol-abuse tests: exact bytes on a real socket (malformed requests,
 * trickled headers and bodies), a parser of the first response, and the checks every case ends
 * with: the connection was released (closed by the server, or reusable for another request) and
 * the API answered others quickly meanwhile.
 */
import { connect, type TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { track } from '../../helpers/resources';

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly text: string;
}

export interface RawConnection {
  readonly socket: TLSSocket;
  /** Bytes received so far. */
  received(): Buffer;
  /** Resolves once the socket is closed (by either side). */
  readonly closed: Promise<void>;
  isClosed(): boolean;
  /** Writes, waiting for drain; false once the socket can no longer be written. */
  write(data: string | Buffer): Promise<boolean>;
  /** The first complete response from `offset` in the received bytes (waits up to `timeoutMs`). */
  response(timeoutMs?: number, offset?: number): Promise<RawResponse & { readonly end: number }>;
  close(): Promise<void>;
}

const opened = new Set<RawConnection>();

/** Closes every raw connection still open (call it in afterEach: failed cases leave some). */
export async function closeAllRaw(): Promise<void> {
  await Promise.all([...opened].map((c) => c.close()));
}

export async function openRaw(url: string, ca: string): Promise<RawConnection> {
  const target = new URL(url);
  const socket = connect({
    host: target.hostname === 'localhost' ? '127.0.0.1' : target.hostname,
    port: Number(target.port),
    servername: 'localhost',
    ca,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  let closedFlag = false;
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  socket.on('data', (c: Buffer) => {
    chunks.push(c);
    size += c.length;
    wake();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closedFlag = true;
      wake();
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  const received = () => Buffer.concat(chunks, size);
  const closeTracked = track(`raw socket ${url}`, async () => {
    socket.destroy();
    await closed;
    opened.delete(connection);
  });
  const connection: RawConnection = {
    socket,
    received,
    closed,
    isClosed: () => closedFlag,
    async write(data) {
      if (closedFlag || socket.destroyed || !socket.writable) return false;
      const ok = socket.write(data);
      if (ok) return true;
      await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
      return !closedFlag;
    },
    async response(timeoutMs = 10_000, offset = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const parsed = parseResponse(received().subarray(offset), closedFlag);
        if (parsed) return { ...parsed, end: parsed.end + offset };
        const left = deadline - Date.now();
        if (closedFlag || left <= 0) {
          throw new Error(
            `no complete response within ${timeoutMs} ms (closed: ${closedFlag}; got ${JSON.stringify(
              received()
                .subarray(offset, offset + 300)
                .toString('latin1'),
            )})`,
          );
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, left);
          waiters.add(done);
        });
      }
    },
    close: closeTracked,
  };
  opened.add(connection);
  return connection;
}

/** Parses one HTTP/1.1 response (Content-Length, chunked, or until close). */
export function parseResponse(
  bytes: Buffer,
  closed: boolean,
): (RawResponse & { readonly end: number }) | null {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const start = headEnd + 4;
  let body: Buffer;
  let end: number;
  if (headers['content-length'] !== undefined) {
    end = start + Number(headers['content-length']);
    if (bytes.length < end) return null;
    body = bytes.subarray(start, end);
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const lineEnd = bytes.indexOf('\r\n', at);
      if (lineEnd < 0) return null;
      const n = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
      if (bytes.length < lineEnd + 2 + n + 2) return null;
      if (n === 0) {
        end = lineEnd + 4;
        break;
      }
      parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + n));
      at = lineEnd + 2 + n + 2;
    }
    body = Buffer.concat(parts);
  } else if (status === 204 || status === 304) {
    end = start;
    body = Buffer.alloc(0);
  } else {
    if (!closed) return null;
    end = bytes.length;
    body = bytes.subarray(start);
  }
  return { status, headers, body, text: body.toString('utf8'), end };
}

/** Sends a whole request on a fresh connection and reads the first response. */
export async function rawExchange(
  url: string,
  ca: string,
  request: Buffer | string,
  timeoutMs = 15_000,
): Promise<{ connection: RawConnection; response: RawResponse & { end: number } }> {
  const connection = await openRaw(url, ca);
  await connection.write(request);
  const response = await connection.response(timeoutMs);
  return { connection, response };
}

/**
 * The connection was released: the server closed it (within `graceMs`), or it is still usable: a
 * second request on it gets its own answer. Returns which.
 */
export async function expectReleased(
  connection: RawConnection,
  afterResponseEnd: number,
  graceMs = 2_000,
): Promise<'closed' | 'reused'> {
  try {
    if (connection.isClosed()) return 'closed';
    const closedInTime = await Promise.race([
      connection.closed.then(() => true),
      sleep(graceMs, undefined, { ref: false }).then(() => false),
    ]);
    if (closedInTime) return 'closed';
    await connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const second = await connection.response(5_000, afterResponseEnd);
    // The admin host answers 200; the others have no /healthz but answer the request: 404.
    if (![200, 404].includes(second.status)) {
      throw new Error(`the reused connection answered ${second.status}: ${second.text}`);
    }
    return 'reused';
  } finally {
    await connection.close();
  }
}

/** Expects the server to close the connection within `timeoutMs`. */
export async function expectClosedByServer(
  connection: RawConnection,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  try {
    const closed = await Promise.race([
      connection.closed.then(() => true),
      sleep(timeoutMs, undefined, { ref: false }).then(() => false),
    ]);
    if (!closed) throw new Error(`the server kept the connection open for ${timeoutMs} ms`);
    return Date.now() - started;
  } finally {
    await connection.close();
  }
}

export interface Probe {
  /** Stops probing and returns the slowest answer (ms); throws if any probe failed. */
  stop(): Promise<{ readonly count: number; readonly slowestMs: number }>;
}

/**
 * Probes the API every `everyMs` while abuse runs: each probe is a fresh HTTPS request that must
 * answer with the expected status. The caller asserts the slowest time.
 */
export function probeWhile(
  probe: () => Promise<number>,
  expected: readonly number[],
  everyMs = 250,
): Probe {
  let running = true;
  let count = 0;
  let slowestMs = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const status = await probe();
        if (!expected.includes(status)) failures.push(`probe answered ${status}`);
      } catch (err) {
        failures.push(`probe failed: ${(err as Error).message}`);
      }
      slowestMs = Math.max(slowestMs, Date.now() - started);
      count++;
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failures.length > 0) throw new Error(failures.slice(0, 5).join('; '));
      if (count === 0) throw new Error('no probe ran');
      return { count, slowestMs };
    },
  };
}
