/**
 * The push hub's bookkeeping of open streams (api/push/stream-registry.ts), with sessions stood in
 * by event emitters (a registry only listens for 'disconnected').
 */
import { EventEmitter } from 'node:events';
import type { Session } from 'better-sse';
import { StreamRegistry, type Stream } from '../../../../api/push/stream-registry';

const scope = { accountId: 'a1', package: 'dev.apkrelay.sample' };

function stream(installationId: string): Stream & { ended: number; session: EventEmitter } {
  const s = {
    installationId,
    deviceId: installationId,
    metadata: [],
    session: new EventEmitter() as EventEmitter & Session,
    ended: 0,
    conn: {
      end: () => void s.ended++,
      destroy: () => undefined,
      unreadBytes: () => 0,
    },
    installedMd5: null,
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
