/**
 * Shared pieces of the protocol-abuse tests: a probe of the API that runs during every case (the
 * API must answer others quickly while it is abused), a count of hostile requests for the report,
 * and snapshots of what an upload may leave behind (GridFS blobs and chunks, upload records).
 */
import { eventuallyValue } from '../../helpers/eventually';
import { request } from '../../helpers/http';
import type { TestStack } from '../../helpers/stack';
import { recordFigures } from '../report';
import { closeAllRaw, probeWhile, type Probe } from './raw-http';

/** The slowest answer a probe may give while the API is abused (2-core machine, shared). */
export const PROBE_BOUND_MS = 2_000;

export function abuseCounter(section: string): { add(n?: number): void; record(): void } {
  let sent = 0;
  return {
    add: (n = 1) => void (sent += n),
    record: () => recordFigures(`protocol:${section}`, { abuseCases: sent }),
  };
}

/** Probes `/healthz` on the admin host and a cheap request on the web and push hosts. */
export function probeApi(stack: TestStack): Probe {
  return probeWhile(async () => {
    const [admin, web, push] = await Promise.all([
      request(`${stack.urls.admin}/healthz`, { ca: stack.ca }),
      request(`${stack.urls.web}/d/not-a-token`, { ca: stack.ca }),
      request(`${stack.urls.push}/api/v2/push-key`, { ca: stack.ca }),
    ]);
    return admin.status === 200 && web.status === 404 && push.status === 200 ? 200 : 0;
  }, [200]);
}

/** Runs `probeApi` around every test of the file and checks the slowest answer. */
export function probeEachTest(stack: () => TestStack): void {
  let probe: Probe | undefined;
  beforeEach(() => {
    probe = probeApi(stack());
  });
  afterEach(async () => {
    await closeAllRaw();
    const result = await probe!.stop();
    expect(result.slowestMs).toBeLessThan(PROBE_BOUND_MS);
  });
}

export interface StoredSnapshot {
  readonly blobs: number;
  readonly chunks: number;
  readonly uploads: number;
}

export async function storedSnapshot(stack: TestStack): Promise<StoredSnapshot> {
  const db = stack.mongo.db;
  const [blobs, chunks, uploads] = await Promise.all([
    db.collection('apks.files').countDocuments(),
    db.collection('apks.chunks').countDocuments(),
    db.collection('uploads').countDocuments(),
  ]);
  return { blobs, chunks, uploads };
}

/** Waits (a blob may be deleted just after the reply) until nothing more than `before` is stored. */
export async function expectNothingStored(
  stack: TestStack,
  before: StoredSnapshot,
  timeoutMs = 5_000,
): Promise<void> {
  await eventuallyValue(
    'nothing more stored than before',
    () => storedSnapshot(stack),
    (now) => JSON.stringify(now) === JSON.stringify(before),
    { timeoutMs, intervalMs: 100 },
  );
}
