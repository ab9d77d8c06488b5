/**
 * The push hub's bookkeeping of open streams (api/push/hub.ts, StreamRegistry), with connections stood
 * in by event emitters (a registry only listens for their closing).
 */
import { EventEmitter } from 'node:events';
import { StreamRegistry, type Stream } from '../../../../api/push/hub';

const scope = { accountId: 'a1', package: 'dev.apkrelay.sample' };

function stream(
  installationId: string,
  kind: 'sse' | 'pushlink' = 'sse',
): Stream & { ended: number; session: EventEmitter } {
  const session = new EventEmitter();
  const s = {
    installationId,
    deviceId: installationId,
    metadata: [],
    session,
    ended: 0,
    conn: {
      kind,
      isConnected: true,
      beatsWhileOpen: true,
      onceClosed: (fn: () => void) => void session.once('disconnected', fn),
      end: () => void s.ended++,
      destroy: () => undefined,
      unreadBytes: () => 0,
      greet: () => undefined,
      deliver: () => undefined,
    },
    installedMd5: null,
    lastDownloadedMd5: null,
    enabled: true,
    offer: { offeredApkId: null, gaveUp: [] },
  };
  return s;
}

test('a group lives while it has streams; each disconnect forgets its own stream only', () => {
  const registry = new StreamRegistry();
  const gone: string[] = [];
  const [a, b] = [stream('i1'), stream('i2')];
  registry.add('app1', scope, a, () => gone.push('i1'));
  registry.add('app1', scope, b, () => gone.push('i2'));
  expect(registry.size).toBe(2);
  a.session.emit('disconnected');
  expect([...registry.app('app1')!.streams.keys()]).toEqual(['i2']);
  b.session.emit('disconnected');
  expect(registry.app('app1')).toBeUndefined();
  expect(gone).toEqual(['i1', 'i2']);

  // A stream added after its app's group went away gets a group again (no orphaned group).
  const c = stream('i3');
  registry.add('app1', scope, c, () => undefined);
  expect(registry.app('app1')!.streams.get('i3')).toBe(c);
});

test("a reconnect ends the older stream; the older one's disconnect leaves the newer", () => {
  const registry = new StreamRegistry();
  const [old, renewed] = [stream('i1'), stream('i1')];
  registry.add('app1', scope, old, () => undefined);
  registry.add('app1', scope, renewed, () => undefined);
  expect(old.ended).toBe(1);
  old.session.emit('disconnected');
  expect(registry.app('app1')!.streams.get('i1')).toBe(renewed);
});

test("drop ends an installation's stream wherever it is; endAll ends every one", () => {
  const registry = new StreamRegistry();
  const [a, b] = [stream('i1'), stream('i2')];
  registry.add('app1', scope, a, () => undefined);
  registry.add('app2', { ...scope, package: 'other' }, b, () => undefined);
  registry.drop('i1');
  expect([a.ended, registry.size]).toEqual([1, 1]);
  registry.endAll();
  expect([b.ended, registry.size]).toEqual([1, 0]);
});

test('the same connection added again (a resubscribe) replaces its entry, is not ended, and is forgotten once', () => {
  const registry = new StreamRegistry();
  const first = stream('i1');
  const again = { ...first, installedMd5: 'a'.repeat(32) };
  const gone: string[] = [];
  registry.add('app1', scope, first, () => gone.push('first'));
  registry.add('app1', scope, again, () => gone.push('again'));
  expect(first.ended).toBe(0);
  expect(registry.app('app1')!.streams.get('i1')).toBe(again);
  first.session.emit('disconnected');
  expect(registry.size).toBe(0);
  expect(gone).toEqual(['first']);
});

test('open streams are counted by channel kind, every kind listed', () => {
  const registry = new StreamRegistry();
  expect(registry.sizeByKind()).toEqual({ sse: 0, pushlink: 0 });
  const [a, b, c] = [stream('i1'), stream('i2', 'pushlink'), stream('i3', 'pushlink')];
  registry.add('app1', scope, a, () => undefined);
  registry.add('app1', scope, b, () => undefined);
  registry.add('app2', scope, c, () => undefined);
  expect(registry.sizeByKind()).toEqual({ sse: 1, pushlink: 2 });
  b.session.emit('disconnected');
  expect(registry.sizeByKind()).toEqual({ sse: 1, pushlink: 1 });
});
