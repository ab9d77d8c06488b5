/**
 * The end of a window in which a PushLink server line must NOT arrive: an invalid line sent on the
 * same socket, answered with an `mt 1` text. A socket's lines are handled in order, so the
 * barrier's answer proves the lines before it were handled in full (a subscribe's decision
 * included).
 */
import type { PushlinkReplay, ServerLine } from '../../device-client/node/pushlink-replay';

/** The server's answer to the barrier's line (the protocol file's text for a line not JSON). */
export const BARRIER =
  '{"mt":"1","msg":"Device register failed: Invalid subscribe line. Not JSON."}';

/**
 * Sends the barrier and waits up to `timeoutMs` for each further line until its answer; returns
 * the socket's lines so far, barrier answers left out.
 */
export async function barrier(s: PushlinkReplay, timeoutMs: number): Promise<ServerLine[]> {
  const isBarrier = (l: ServerLine) => JSON.stringify(l) === BARRIER;
  const before = s.lines.filter(isBarrier).length;
  s.send('not json\n');
  for (let n = s.lines.length + 1; ; n++) {
    const lines = await s.waitForLines(n, timeoutMs);
    if (lines.length < n) throw new Error(`the barrier was not answered within ${timeoutMs} ms`);
    if (lines.filter(isBarrier).length > before) return lines.filter((l) => !isBarrier(l));
  }
}
