/**
 * The push link (pinned key, signatures, reconnect with backoff and Last-Event-ID, heartbeat with
 * changed metadata) and the download (resume with Range, verification, refusal of tampered files).
 */
import { randomBytes } from 'node:crypto';
import { SseParser } from '../../../../device-client/core/sse-parser';
import { backoffDelay } from '../../../../device-client/core/backoff';
import { derivePushKeys, signEvent } from '../../../../shared/devices/push-signing';
import {
  type FakeStream,
  Harness,
  json,
  pushKeys,
  settle,
  sse,
  versionEvent,
} from '../../../helpers/device-client-fakes';

describe('signed events', () => {
  test.each([
    [
      'a bad signature',
      (e: Record<string, unknown>) => ({ ...e, signature: Buffer.alloc(64).toString('base64') }),
    ],
    ['a changed field', (e: Record<string, unknown>) => ({ ...e, md5: 'b'.repeat(32) })],
    [
      'another key',
      (e: Record<string, unknown>) =>
        signEvent(derivePushKeys(randomBytes(32)), { ...e, signature: undefined }),
    ],
    [
      'another app',
      (e: Record<string, unknown>) =>
        signEvent(pushKeys, { ...e, package: 'com.example.other', signature: undefined }),
    ],
    ['a malformed event', (e: Record<string, unknown>) => ({ ...e, md5: 42 })],
  ])(
    'a version event with %s is refused: nothing downloaded or installed',
    async (_what, mutate) => {
      const h = new Harness();
      h.client.setCurrentStrategy('CUSTOM');
      await h.online();
      h.stream.write(sse('version', mutate(versionEvent(h.apk, 'apk-2'))));
      await settle();
      expect(h.of('refused')).toHaveLength(1);
      expect(h.of('version')).toEqual([]);
      expect(h.requests.filter((r) => r.url.includes('/download'))).toEqual([]);
      expect(h.broadcasts).toEqual([]);
      expect(h.client.hasPendingUpdate()).toBe(false);
    },
  );

  test('the push key is pinned on first use: stored, never fetched again', async () => {
    const h = new Harness();
    await h.online();
    const pinned = h.storage.records.get('push-key');
    expect(pinned).toBeDefined();
    await h.client.close(0);
    const again = new Harness({}, h.storage);
    await again.online();
    expect(again.requests.some((r) => r.url.endsWith('/push-key'))).toBe(false);
    expect(again.storage.records.get('push-key')).toBe(pinned);
  });
});

describe('push stream', () => {
  test('reconnects with exponential backoff (server retry: as the floor) and sends Last-Event-ID', async () => {
    const h = new Harness({ reconnectBackoff: { initialMs: 1_000, maxMs: 8_000, jitter: 0.5 } });
    await h.online();
    h.stream.write('retry: 1500\n\n');
    h.stream.write(sse('status', { status: 'enabled' }, '7-1'));
    await settle();
    h.offline = true;
    h.stream.close();
    await settle();
    // attempt 0 after a working stream: max(retry 1500, 1000) = 1500; then 2000, 4000, 8000, 8000
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [d] = h.clock.pending().filter((x) => x < 30_000);
      delays.push(d!);
      await h.clock.advance(d!);
    }
    expect(delays).toEqual([1_500, 2_000, 4_000, 8_000, 8_000]);
    h.offline = false;
    await h.clock.advance(8_000);
    const last = h.requests.filter((r) => r.url.includes('/api/v2/stream')).at(-1)!;
    expect(last.headers!['last-event-id']).toBe('7-1');
    expect(h.streams.filter((s: FakeStream) => !s.closed)).toHaveLength(1);
  });

  test('a 429 or 503 refusal with Retry-After: no new attempt before it, then back to backoff', async () => {
    const h = new Harness({ reconnectBackoff: { initialMs: 1_000, maxMs: 8_000, jitter: 0 } });
    h.registerReply = () =>
      json(
        429,
        { error: { code: 'AUTH_RATE_LIMITED', message: 'slow down' } },
        { 'retry-after': '120' },
      );
    h.start();
    await settle();
    const registrations = () => h.requests.filter((r) => r.url.endsWith('/api/v2/installations'));
    expect(registrations()).toHaveLength(1);
    await h.clock.advance(119_000);
    expect(registrations()).toHaveLength(1); // backoff alone would have retried after 1 s
    h.registerReply = undefined;
    h.streamStatus = 503;
    h.streamHeaders = { 'retry-after': '30' };
    await h.clock.advance(1_000);
    expect(registrations()).toHaveLength(2);
    const streamsOpened = () => h.requests.filter((r) => r.url.includes('/api/v2/stream'));
    expect(streamsOpened()).toHaveLength(1);
    await h.clock.advance(29_000);
    expect(streamsOpened()).toHaveLength(1);
    h.streamStatus = 200;
    await h.clock.advance(1_000);
    expect(streamsOpened()).toHaveLength(2);
    expect(h.streams.at(-1)!.closed).toBe(false);
  });

  test('a stream silent for 90 s (no keep-alive) is closed and reconnected', async () => {
    const h = new Harness();
    await h.online();
    await h.clock.advance(60_000);
    h.stream.write(': keep-alive\n\n');
    await h.clock.advance(89_000);
    expect(h.streams).toHaveLength(1);
    await h.clock.advance(1_000);
    expect(h.streams[0]!.closed).toBe(true);
    await h.clock.advance(1_000);
    expect(h.streams).toHaveLength(2);
  });

  test('the end of a stream is reported (stream-ended) after every event it carried, not on close', async () => {
    const h = new Harness();
    h.client.setCurrentStrategy('CUSTOM');
    await h.online();
    h.stream.write(sse('version', versionEvent(h.apk, 'apk-2')));
    h.stream.close(); // the server ends the stream
    await settle();
    const names = () =>
      h.events.map((e) => e.event).filter((e) => e !== 'downloaded' && e !== 'apply');
    expect(names()).toEqual(['registered', 'version', 'stream-ended']);
    await h.clock.advance(1_000); // the reconnect: a second stream, then the client's own close
    expect(h.streams).toHaveLength(2);
    await h.client.close(0);
    expect(h.streams[1]!.closed).toBe(true);
    expect(names()).toEqual(['registered', 'version', 'stream-ended']);
  });

  test('backoff jitter draws the delay from [d/2, d]', () => {
    const p = { initialMs: 1_000, maxMs: 60_000, jitter: 0.5 };
    expect(backoffDelay(p, 3, 0)).toBe(8_000);
    expect(backoffDelay(p, 3, 0.999)).toBe(4_004);
    expect(backoffDelay(p, 30, 0)).toBe(60_000);
  });

  test('heartbeat every heartbeatSeconds; metadata only when it changed', async () => {
    const h = new Harness();
    h.client.addMetadata('a', '1');
    await h.online();
    const beats = () =>
      h.requests
        .filter((r) => r.url.endsWith('/heartbeat'))
        .map((r) => JSON.parse(r.body!) as Record<string, unknown>);
    await h.clock.advance(30_000);
    expect(beats()).toHaveLength(1);
    expect(beats()[0]).not.toHaveProperty('metadata');
    h.client.addMetadata('b', '2');
    await h.clock.advance(30_000);
    expect(beats()[1]!.metadata).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    await h.clock.advance(30_000);
    expect(beats()[2]).not.toHaveProperty('metadata');
  });

  test('a stream answered 404 (not registered) makes the client register again', async () => {
    const h = new Harness();
    h.streamStatus = 404;
    h.start();
    await settle();
    h.streamStatus = 200;
    await h.clock.advance(2_000);
    expect(h.requests.filter((r) => r.url.endsWith('/installations'))).toHaveLength(2);
  });

  test('SSE parser: fields split across chunks, CRLF, comments, multi-line data', () => {
    const p = new SseParser();
    expect(p.feed(': keep-alive\r\nevent: ver')).toEqual([]);
    expect(p.feed('sion\r\nid: 5-0\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: x\n\n')).toEqual([
      { event: 'version', data: '{"a":\n1}', id: '5-0' },
      { event: 'message', data: 'x', id: '5-0' },
    ]);
  });
});

describe('download', () => {
  test('interrupted halfway, it resumes with Range (and If-Range) and ends verified', async () => {
    const h = new Harness({ downloadBackoff: { initialMs: 1_000, maxMs: 1_000, jitter: 0 } });
    const half = h.apk.length / 2;
    let first = true;
    h.download = (req) => {
      if (!first) return h.serve(req);
      first = false;
      return {
        status: 200,
        headers: {},
        body: (async function* (apk: Buffer) {
          yield await Promise.resolve(apk.subarray(0, half));
          throw new Error('socket hang up');
        })(h.apk),
        close: () => undefined,
      };
    };
    h.client.setCurrentStrategy('CUSTOM');
    await h.online();
    const v = versionEvent(h.apk, 'apk-2');
    h.stream.write(sse('version', v));
    await settle();
    expect(h.storage.files.get(`update-${v.md5}.apk`)!.length).toBe(half);
    expect(h.of('downloaded')).toEqual([]);
    await h.clock.advance(1_000);
    const gets = h.requests.filter((r) => r.url.includes('/download'));
    expect(gets.map((g) => g.headers!.range)).toEqual([undefined, `bytes=${half}-`]);
    expect(gets[1]!.headers!['if-range']).toBe(`"${v.sha256}"`);
    expect(gets[1]!.url).toContain(`api_key=${'k'.repeat(32)}`);
    expect(gets[1]!.url).toContain('deviceId=device-1');
    expect(h.of('downloaded')).toEqual([{ event: 'downloaded', md5: v.md5, verified: true }]);
    expect(h.storage.files.get(`update-${v.md5}.apk`)).toEqual(h.apk);
  });

  test('a tampered download is refused, deleted and never installed', async () => {
    const h = new Harness({
      downloadBackoff: { initialMs: 1_000, maxMs: 1_000, jitter: 0 },
      maxTamperedDownloads: 2,
    });
    const tampered = Buffer.from(h.apk);
    tampered[100] = tampered[100]! ^ 0xff;
    h.download = (req) => h.serve(req, tampered);
    h.client.setCurrentStrategy('CUSTOM');
    await h.online();
    const v = versionEvent(h.apk, 'apk-2');
    h.stream.write(sse('version', v));
    await settle();
    expect(h.of('downloaded')).toEqual([
      { event: 'downloaded', md5: v.md5, verified: false, reason: 'MD5 mismatch' },
    ]);
    expect(h.storage.files.size).toBe(0);
    await h.clock.advance(1_000);
    expect(h.of('downloaded')).toHaveLength(2);
    expect(h.of('error')[0]!.message).toMatch(/abandoned/);
    await h.clock.advance(60_000);
    expect(h.of('downloaded')).toHaveLength(2); // gave up after 2
    expect(h.broadcasts).toEqual([]);
    await expect(h.client.applyUpdate()).resolves.toBe(false);
    expect(h.installs).toEqual([]);
  });

  test('a file altered in storage after verification is refused at install time', async () => {
    const h = new Harness();
    h.client.setCurrentStrategy('CUSTOM');
    await h.online();
    const v = versionEvent(h.apk, 'apk-2');
    h.stream.write(sse('version', v));
    await settle();
    const stored = h.storage.files.get(`update-${v.md5}.apk`)!;
    stored[0] = stored[0]! ^ 1;
    await expect(h.client.applyUpdate()).resolves.toBe(false);
    expect(h.installs).toEqual([]);
    expect(h.of('refused')).toEqual([expect.objectContaining({ what: 'install' })]);
  });
});
