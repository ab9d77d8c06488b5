/**
 * Where an API process's memory lives, beside its RSS (lib/rss.ts): V8's heap (used and
 * reserved), the memory outside it that V8 accounts for (`external`: buffers, TLS state), the
 * part of that held by ArrayBuffers and Buffers, and the RSS the process reports itself, read
 * from the API's Prometheus metrics (`GET /metrics`, prefix `apkrelay_`, Bearer METRICS_TOKEN). Without a forced GC the heap figure includes garbage not yet collected, so it
 * is a reading, not a floor: compare both sides read the same way.
 */
import type { Agent } from 'node:http';
import { jsonRequest, loopback } from './fanout-setup';

export interface ApiMemory {
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  /** `process.memoryUsage().arrayBuffers`: Buffers and ArrayBuffers (part of `external`). */
  readonly arrayBuffers: number;
  readonly rss: number;
}

const GAUGES = {
  heapUsed: 'apkrelay_nodejs_heap_size_used_bytes',
  heapTotal: 'apkrelay_nodejs_heap_size_total_bytes',
  external: 'apkrelay_nodejs_external_memory_bytes',
  arrayBuffers: 'apkrelay_nodejs_array_buffers_bytes',
  rss: 'apkrelay_process_resident_memory_bytes',
} as const;

/** The gauges of `GAUGES` in a Prometheus text exposition; NaN for one that is absent. */
export function parseApiMemory(text: string): ApiMemory {
  const value = (name: string) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  };
  return {
    heapUsed: value(GAUGES.heapUsed),
    heapTotal: value(GAUGES.heapTotal),
    external: value(GAUGES.external),
    arrayBuffers: value(GAUGES.arrayBuffers),
    rss: value(GAUGES.rss),
  };
}

export interface MemoryProbe {
  readonly agent: Agent;
  readonly ca: string;
  readonly adminUrl: string;
  readonly token: string;
}

/** The API's memory now, from its `/metrics`. */
export async function apiMemory(p: MemoryProbe): Promise<ApiMemory> {
  const url = loopback(p.adminUrl, '/metrics');
  const r = await jsonRequest(p.agent, p.ca, 'GET', url, { authorization: `Bearer ${p.token}` });
  if (r.status !== 200 || typeof r.body !== 'string') throw new Error(`/metrics: HTTP ${r.status}`);
  return parseApiMemory(r.body);
}

/** Per connection: (with N idle connections - before) / N, for each figure. */
export function perConnection(before: ApiMemory, idle: ApiMemory, n: number): ApiMemory {
  return {
    heapUsed: (idle.heapUsed - before.heapUsed) / n,
    heapTotal: (idle.heapTotal - before.heapTotal) / n,
    external: (idle.external - before.external) / n,
    arrayBuffers: (idle.arrayBuffers - before.arrayBuffers) / n,
    rss: (idle.rss - before.rss) / n,
  };
}
