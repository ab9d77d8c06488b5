/** A PushLink SDK socket (the replay client) opened on a test stack's legacy push listener. */
import { PushlinkReplay } from '../../device-client/node/pushlink-replay';
import type { TestStack } from './stack';

/** Opens a socket as the SDK does (TLS, the stack's CA) and adds it to `sockets` for closing. */
export async function openLegacySocket(
  stack: Pick<TestStack, 'legacyPushPort' | 'ca'>,
  sockets: PushlinkReplay[],
): Promise<PushlinkReplay> {
  if (stack.legacyPushPort === undefined) throw new Error('the stack has no legacy push listener');
  const s = await PushlinkReplay.connect({
    host: '127.0.0.1',
    port: stack.legacyPushPort,
    ca: stack.ca,
  });
  sockets.push(s);
  return s;
}
