/**
 * A port picked with freePort() and kept bound until its real owner is about to bind it. A port
 * picked long before use is free for anyone on this busy machine meanwhile (issue 33: `topology`
 * picked nginx's port before starting four processes, tens of seconds at load 23); held, it is
 * free only from `release()` to the owner's bind.
 */
import { createServer } from 'node:net';
import { freePort } from '../../ops/services/child';

export interface HeldPort {
  readonly port: number;
  /** Unbinds it, for the process about to take it. */
  release(): Promise<void>;
}

export async function holdPort(): Promise<HeldPort> {
  for (;;) {
    const port = await freePort();
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    // Taken between freePort's check and this bind: pick another.
    if (!bound) continue;
    let released: Promise<void> | undefined;
    return {
      port,
      release: () => (released ??= new Promise((resolve) => server.close(() => resolve()))),
    };
  }
}
