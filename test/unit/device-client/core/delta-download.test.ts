/**
 * The TS client's delta path (docs/delta-updates.md) with fake ports: with the installed APK and
 * an inflater, a version notice is first fetched as a patch from /download/delta (URL built from
 * the notice's), applied and verified; every failure (no patch, a broken patch, a patch giving
 * other bytes, the network) falls back to the full APK, and the heartbeat's lastInstall carries
 * how it came and the bytes it cost. Patches are made by the server's builder.
 */
import { createHash } from 'node:crypto';
import type { HttpRequest, OpenResponse } from '../../../../device-client/core/ports';
import { nodeInflater } from '../../../../device-client/node/inflater';
import { buildPatch } from '../../../../shared/delta/build-patch';
import { generatePatch2 } from '../../../../device-client/protocol/delta/generate-patch2';
import { scratchFiles } from '../../../../device-client/node/scratch-file';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { bufferOld } from '../../../helpers/delta';
import { eventually } from '../../../helpers/eventually';
import { apkBytes, Harness, sse, versionEvent } from '../../../helpers/device-client-fakes';

const BEAT_MS = 30_000;
const old = apkBytes('v1');
const oldMd5 = createHash('md5').update(old).digest('hex');
/** The new version: v1 with 8 bytes inserted. */
const target = Buffer.concat([old.subarray(0, 4000), Buffer.from('new code'), old.subarray(4000)]);
const patch = buildPatch(old, target);

function body(bytes: Buffer): OpenResponse {
  return {
    status: 200,
    headers: {},
    body: (async function* () {
      yield await Promise.resolve(bytes);
    })(),
    close: () => undefined,
  };
}

/** A device on v1 (its file readable) told to run the harness's APK; `delta` answers the patch. */
async function updated(
  delta: (req: HttpRequest) => OpenResponse | Promise<OpenResponse>,
  prepare: (h: Harness) => void = () => undefined,
  tickMs = 0,
) {
  const h = new Harness();
  prepare(h);
  h.apk = target;
  h.extraPorts = {
    installedApk: { md5: oldMd5, ...bufferOld(old) },
    inflater: nodeInflater,
    ...h.extraPorts,
  };
  h.download = (req) => (req.url.includes('/download/delta') ? delta(req) : h.serve(req));
  h.client.setCurrentStrategy('CUSTOM');
  await h.online({ installedMd5: oldMd5 });
  const v = versionEvent(h.apk, 'apk-2');
  h.stream.write(sse('version', v, '1-0'));
  // zlib works on libuv's threads: wait for the verified file, not for a number of turns.
  // With `tickMs`, the fake clock moves on while waiting (a client told to ask again later).
  await eventually('the update downloaded', async () => {
    if (tickMs > 0) await h.clock.advance(tickMs);
    return h.of('downloaded').some((e) => e.verified === true);
  });
  await h.client.applyUpdate();
  await h.clock.advance(BEAT_MS);
  const beats = h.requests.filter((r) => r.url.endsWith('/heartbeat'));
  const lastInstall = (JSON.parse(beats.at(-1)!.body!) as { lastInstall?: { download?: unknown } })
    .lastInstall;
  const fetched = h.requests.filter((r) => /\/download/.test(r.url)).map((r) => new URL(r.url));
  return { h, v, download: lastInstall?.download, fetched };
}

test('a patch is applied, verified and installed; the full APK is never fetched', async () => {
  const { h, v, download, fetched } = await updated(() => body(patch));
  expect(fetched.map((u) => u.pathname)).toEqual(['/download/delta']);
  const q = Object.fromEntries(fetched[0]!.searchParams);
  expect(q).toMatchObject({
    package: 'dev.apkrelay.sample',
    from: oldMd5,
    to: v.sha256,
    // no scratch port: ARDELTA1 only
    formats: '1',
  });
  expect(h.installs).toHaveLength(1);
  expect(patch.length).toBeLessThan(target.length / 10);
  expect(download).toEqual({ via: 'delta', bytes: patch.length, fallback: null });
});

/** ARDELTA2 from old to target (the fake APKs are no ZIPs: no ranges, dfOld is the old file). */
function patch2(): Buffer {
  const chunks: Uint8Array[] = [];
  generatePatch2(old, target, { old: [], new: [] }, (c) => chunks.push(c));
  return deflateSync(Buffer.concat(chunks));
}

describe('with a scratch port', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'apkrelay-scratch-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const withScratch = (h: Harness) => {
    h.extraPorts = { deltaScratch: scratchFiles(dir) };
  };
  const named = (bytes: Buffer, format?: string): OpenResponse => ({
    ...body(bytes),
    headers: format === undefined ? {} : { 'x-apkrelay-delta-format': format },
  });

  test('asks formats=2,1 and applies the ARDELTA2 the server names; the scratch file is deleted', async () => {
    const bytes = patch2();
    const { h, download, fetched } = await updated(() => named(bytes, '2'), withScratch);
    expect(fetched[0]!.searchParams.get('formats')).toBe('2,1');
    expect(h.installs).toHaveLength(1);
    expect(download).toEqual({ via: 'delta', bytes: bytes.length, fallback: null });
    expect(await readdir(dir)).toEqual([]);
  });

  test('no format header: the patch is ARDELTA1', async () => {
    const { h, download } = await updated(() => named(patch), withScratch);
    expect(h.installs).toHaveLength(1);
    expect(download).toEqual({ via: 'delta', bytes: patch.length, fallback: null });
  });

  test('an ARDELTA1 patch named 2: refused (magic), the full APK; no scratch file left', async () => {
    const got = await updated(() => named(patch, '2'), withScratch);
    fellBack(got, patch.length + target.length, 'patch-failed', 'not an ARDELTA2 patch');
    expect(await readdir(dir)).toEqual([]);
  });

  test('a format this client does not know: patch-failed, the full APK', async () => {
    const got = await updated(() => named(patch, '3'), withScratch);
    const why = 'patch format 3 is not one this client applies';
    fellBack(got, target.length, 'patch-failed', why);
  });
});

/** Installed once, after a full download that followed a failed patch. */
function fellBack(
  got: { h: Harness; download: unknown },
  bytes: number,
  reason: string,
  message: string,
) {
  expect(got.h.installs).toHaveLength(1);
  expect(got.download).toEqual({ via: 'full', bytes, fallback: { reason, message } });
}

test('no patch (404): the full APK, reported as a no-patch fallback', async () => {
  const got = await updated(() => ({
    ...body(Buffer.from('Delta not available.')),
    status: 404,
  }));
  expect(got.fetched.map((u) => u.pathname)).toEqual(['/download/delta', '/download']);
  // the refusal's body is not read: only the APK's bytes came
  fellBack(got, target.length, 'no-patch', 'HTTP 404');
});

test('a broken patch: the full APK, reported as patch-failed with the bytes of both', async () => {
  const broken = Buffer.from(patch);
  broken[broken.length - 1]! ^= 0xff; // the zlib checksum no longer matches
  const got = await updated(() => body(broken));
  const why = 'the patch is not a valid zlib stream';
  fellBack(got, broken.length + target.length, 'patch-failed', why);
});

test('a patch that gives other bytes: the full APK, reported as a mismatch', async () => {
  const other = buildPatch(old, Buffer.concat([target, Buffer.from('!')]));
  const got = await updated(() => body(other));
  const why = `size ${target.length + 1} instead of ${target.length}`;
  fellBack(got, other.length + target.length, 'mismatch', why);
});

test('the network fails on the patch: the full APK, reported as network', async () => {
  const got = await updated(() => Promise.reject(new Error('connect ECONNRESET')));
  fellBack(got, target.length, 'network', 'connect ECONNRESET');
});

test('no space for the new file: the full APK (once space is back), reported as no-space', async () => {
  const got = await updated(
    () => body(patch),
    (h) => {
      const append = h.storage.append.bind(h.storage);
      let failed = false;
      h.storage.append = (name, chunk) => {
        if (failed) return append(name, chunk);
        failed = true;
        return Promise.reject(
          Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' }),
        );
      };
    },
  );
  fellBack(got, patch.length + target.length, 'no-space', 'ENOSPC: no space left');
});

/** `503 Delta not ready yet.`, with a Retry-After when given. */
function notReady(retryAfter?: string): OpenResponse {
  return {
    ...body(Buffer.from('Delta not ready yet.')),
    status: 503,
    headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  };
}

/**
 * An update whose patch requests `answer(n)` answers (n: 1 for the first ask), the fake clock
 * moving `tickMs` at a time; with the instants (ms after the first) the patch was asked at.
 */
async function askedOverTime(answer: (n: number) => OpenResponse, tickMs: number) {
  const asked: number[] = [];
  let h!: Harness;
  const ask = () => {
    asked.push(h.clock.now());
    return answer(asked.length);
  };
  const got = await updated(ask, (x) => (h = x), tickMs);
  return { ...got, askedAt: asked.map((t) => t - asked[0]!) };
}

test('not ready yet: asks again after Retry-After, then applies the patch', async () => {
  const got = await askedOverTime((n) => (n <= 2 ? notReady('7') : body(patch)), 1_000);
  expect(got.askedAt).toEqual([0, 7_000, 14_000]);
  expect(got.fetched.map((u) => u.pathname)).toEqual([
    '/download/delta',
    '/download/delta',
    '/download/delta',
  ]);
  expect(got.h.installs).toHaveLength(1);
  expect(got.download).toEqual({ via: 'delta', bytes: patch.length, fallback: null });
});

test('not ready for 120 s: waits at most 30 s a time, then the full APK as no-patch', async () => {
  const got = await askedOverTime(() => notReady('60'), 5_000);
  expect(got.askedAt).toEqual([0, 30_000, 60_000, 90_000, 120_000]);
  expect(got.fetched.map((u) => u.pathname).at(-1)).toBe('/download');
  fellBack(got, target.length, 'no-patch', 'not ready after 120 s');
});

test('a 503 without Retry-After is a network fallback, at once', async () => {
  const got = await updated(() => notReady());
  expect(got.fetched.map((u) => u.pathname)).toEqual(['/download/delta', '/download']);
  fellBack(got, target.length, 'network', 'HTTP 503');
});
