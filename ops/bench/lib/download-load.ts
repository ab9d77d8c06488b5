/**
 * The download load of a benchmark: N concurrent clients, each with its own keep-alive
 * node:https agent (one socket), each fetching one URL `rounds` times back to back, counting bytes
 * and timing each download to its first and last byte. Client 0 hashes its downloads, so the bytes
 * of at least one full download per run are checked against the expected SHA-256.
 * The same code drives every target, so differences come from the servers.
 */
import { createHash, type Hash } from 'node:crypto';
import { Agent, get } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface LoadTarget {
  readonly url: URL;
  /** PEM of the server's (self-signed) certificate. */
  readonly ca: string;
}

export interface LoadOptions {
  readonly clients: number;
  readonly rounds: number;
  readonly expectedBytes: number;
  readonly expectedSha256: string;
  /** A download whose socket stays idle this long fails the run. */
  readonly idleTimeoutMs?: number;
}

export interface LoadResult {
  readonly downloads: number;
  readonly bytes: number;
  /** First request sent to last byte received, over all clients. */
  readonly wallSeconds: number;
  /** Time to last byte of each download, ascending. */
  readonly ttlbSeconds: readonly number[];
  /** Time to first byte (response headers) of each download, ascending. */
  readonly ttfbSeconds: readonly number[];
  /** How many full downloads matched the expected SHA-256 (all hashed ones, or it throws). */
  readonly verifiedDownloads: number;
  /** Negotiated TLS version and cipher, e.g. "TLSv1.3 TLS_AES_256_GCM_SHA384". */
  readonly tls: string;
  /** CPU seconds this (client) process used during the run. */
  readonly clientCpuSeconds: number;
}

interface OneDownload {
  readonly ttfb: number;
  readonly ttlb: number;
  readonly sha256: string | null;
  readonly tls: string;
}

const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

function downloadOnce(
  agent: Agent,
  target: LoadTarget,
  options: LoadOptions,
  hashIt: boolean,
): Promise<OneDownload> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = get(target.url, { agent }, (res) => {
      const ttfb = seconds(start);
      const socket = res.socket as TLSSocket;
      const tls = `${socket.getProtocol() ?? '?'} ${socket.getCipher().standardName}`;
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${target.url.origin}: HTTP ${res.statusCode ?? '?'}`));
        return;
      }
      const hash: Hash | null = hashIt ? createHash('sha256') : null;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash?.update(chunk);
      });
      res.once('error', reject);
      res.once('end', () => {
        const ttlb = seconds(start);
        if (!res.complete || bytes !== options.expectedBytes) {
          reject(new Error(`${target.url.origin}: got ${bytes} of ${options.expectedBytes} bytes`));
          return;
        }
        resolve({ ttfb, ttlb, sha256: hash ? hash.digest('hex') : null, tls });
      });
    });
    req.setTimeout(options.idleTimeoutMs ?? 120_000, () =>
      req.destroy(
        new Error(`${target.url.origin}: idle for ${options.idleTimeoutMs ?? 120_000} ms`),
      ),
    );
    req.once('error', reject);
  });
}

/** Runs the load; rejects on the first failed or corrupted download. */
export async function runLoad(target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  const agents = Array.from(
    { length: options.clients },
    () => new Agent({ keepAlive: true, maxSockets: 1, ca: target.ca }),
  );
  const ttlb: number[] = [];
  const ttfb: number[] = [];
  let verified = 0;
  let tls = '';
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  const client = async (agent: Agent, index: number) => {
    for (let round = 0; round < options.rounds; round++) {
      const one = await downloadOnce(agent, target, options, index === 0);
      ttlb.push(one.ttlb);
      ttfb.push(one.ttfb);
      tls = one.tls;
      if (one.sha256 !== null) {
        if (one.sha256 !== options.expectedSha256) {
          throw new Error(`${target.url.origin}: SHA-256 ${one.sha256} is not the APK's`);
        }
        verified++;
      }
    }
  };
  try {
    await Promise.all(agents.map(client));
  } finally {
    for (const agent of agents) agent.destroy();
  }
  const wallSeconds = seconds(start);
  const cpu = process.cpuUsage(cpuBefore);
  const ascending = (a: number, b: number) => a - b;
  return {
    downloads: ttlb.length,
    bytes: ttlb.length * options.expectedBytes,
    wallSeconds,
    ttlbSeconds: ttlb.sort(ascending),
    ttfbSeconds: ttfb.sort(ascending),
    verifiedDownloads: verified,
    tls,
    clientCpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/** Nearest-rank percentile of ascending values. */
export function percentile(ascending: readonly number[], p: number): number {
  if (ascending.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * ascending.length);
  return ascending[Math.min(ascending.length, Math.max(1, rank)) - 1] ?? NaN;
}
