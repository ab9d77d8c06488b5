/**
 * The body-progress deadline of an upload: a body that brings fewer than `minBytes` bytes in a
 * window of `windowMs` is stalled (`onStall` is called once, then the watch ends). It bounds slow
 * senders that keep a socket, and the start of a staged blob, for as long as REQUEST_TIMEOUT_MS.
 * A window in which the server itself held the body back (the request paused: the key being
 * checked, storage applying back-pressure) does not count against the client.
 */
import type { IncomingMessage } from 'node:http';

export interface ProgressBounds {
  readonly minBytes: number;
  readonly windowMs: number;
}

/** Starts watching `req`; returns the function that stops the watch (idempotent). */
export function watchBodyProgress(
  req: IncomingMessage,
  bounds: ProgressBounds,
  onStall: () => void,
): () => void {
  let received = 0;
  let mark = 0;
  let heldBack = false;
  const onData = (chunk: Buffer) => void (received += chunk.length);
  const onPause = () => void (heldBack = true);
  req.on('data', onData);
  req.on('pause', onPause);
  const timer = setInterval(() => {
    if (req.complete) {
      stop();
      return;
    }
    const paused = req.readableFlowing !== true;
    if (heldBack || paused) {
      heldBack = paused;
    } else if (received - mark < bounds.minBytes) {
      stop();
      onStall();
      return;
    }
    mark = received;
  }, bounds.windowMs);
  timer.unref();
  function stop(): void {
    clearInterval(timer);
    req.off('data', onData);
    req.off('pause', onPause);
  }
  return stop;
}
