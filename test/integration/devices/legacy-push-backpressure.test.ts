/**
 * A PushLink device that stops reading is dropped before the server buffers much (issue 18): one
 * real socket of the legacy listener's kind (api/push/legacy/pushlink-socket.ts) on loopback TCP,
 * its device side paused, sent `mt 0` lines as fast as the hub could. The kernel's socket buffers
 * fill first; then Node's own buffer must stay under the bound and the socket be destroyed.
 */
import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import type { ApiDeps } from '../../../api/deps';
import { PushlinkSocket, DEFAULT_SOCKET_BOUNDS } from '../../../api/push/legacy/pushlink-socket';
import type { ApkDoc } from '../../../shared/catalog/types';
import { apkLine } from '../../../shared/devices/pushlink-protocol';
import type { DeviceLookups } from '../../../shared/devices/store';
import { testLogger } from '../../helpers/services';

test('a device that stops reading is dropped with at most the bound buffered', async () => {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const device = connect({ host: '127.0.0.1', port });
  device.on('error', () => undefined);
  const [serverSide] = (await once(server, 'connection')) as [Socket];
  device.pause(); // the device stops reading
  const deps = { log: testLogger(), now: () => new Date() } as unknown as ApiDeps;
  const channel = new PushlinkSocket(serverSide, deps, {} as DeviceLookups, DEFAULT_SOCKET_BOUNDS);
  const apk = { md5: 'f'.repeat(32) } as ApkDoc;
  const line = apkLine(apk.md5).length;
  let peak = 0;
  let sent = 0;
  try {
    while (channel.isConnected && sent < 2_000_000) {
      for (let i = 0; i < 1_000 && channel.isConnected; i++, sent++) {
        channel.deliver(
          {},
          {
            package: 'p.q',
            version: apk,
            giveup: null,
            installedMd5: null,
          },
        );
        peak = Math.max(peak, serverSide.writableLength);
      }
      await turn(); // let the kernel take what it will
    }
    expect(channel.isConnected).toBe(false);
    expect(peak).toBeLessThanOrEqual(DEFAULT_SOCKET_BOUNDS.maxUnreadBytes + line);
    expect(sent).toBeGreaterThan(DEFAULT_SOCKET_BOUNDS.maxUnreadBytes / line);
  } finally {
    device.destroy();
    serverSide.destroy();
    server.close();
    await once(server, 'close');
  }
});
