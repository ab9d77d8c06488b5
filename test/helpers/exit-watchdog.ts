/**
 * A jest run must end when its tests have. Run in band (the resilience suite), a handle a test
 * file forgot (a socket, a timer, a child process) keeps jest's own process alive after its
 * summary, and CI waits for it until its deadline. Armed at the end of the global teardown, this
 * timer does nothing when the process ends by itself (it is unref'd); otherwise it names every
 * handle still open, then ends the process with the status jest chose for the run.
 */

import { pendingTimerOrigins } from './timer-origins';

/** A field of a handle as text: strings and numbers as they are, anything else as `?`. */
function field(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '?';
}

/**
 * One line per handle, with what identifies it: addresses, a pid. (Timers are not handles to
 * Node: timer-origins.js says where they were made.)
 */
export function describeHandle(handle: unknown): string {
  if (handle === null || typeof handle !== 'object') return String(handle);
  const kind = handle.constructor?.name ?? 'object';
  const h = handle as Record<string, unknown>;
  if (typeof h.pid === 'number' && Array.isArray(h.spawnargs))
    return `${kind} pid ${h.pid}: ${h.spawnargs.map(field).join(' ')}`;
  if ('remotePort' in h || 'localPort' in h) {
    const remote =
      h.remotePort === undefined
        ? 'unconnected'
        : `${field(h.remoteAddress)}:${field(h.remotePort)}`;
    const destroyed = h.destroyed === true ? ' (destroyed)' : '';
    return `${kind} ${field(h.localAddress)}:${field(h.localPort)} -> ${remote}${destroyed}`;
  }
  if (typeof h.address === 'function') {
    const address = (h.address as () => unknown).call(handle);
    return `${kind} listening on ${JSON.stringify(address)}`;
  }
  return kind;
}

type HandleSource = { _getActiveHandles?: () => unknown[] };

export function armExitWatchdog(
  graceMs: number,
  log: (line: string) => void = console.error,
): void {
  const timer = setTimeout(() => {
    const handles = (process as unknown as HandleSource)._getActiveHandles?.() ?? [];
    const ours = new Set<unknown>([timer, process.stdin, process.stdout, process.stderr]);
    const lines = handles.filter((h) => !ours.has(h)).map(describeHandle);
    const timers = pendingTimerOrigins();
    log(
      `jest's process was still running ${graceMs / 1000} s after the run ended; ` +
        `handles left open:\n  ${lines.join('\n  ') || '(none listed)'}\n` +
        `resources: ${process.getActiveResourcesInfo().join(', ')}\n` +
        `timers pending (${timers.length}), where each was made:\n  ${timers.join('\n  ') || '(none recorded)'}`,
    );
    process.exit();
  }, graceMs);
  timer.unref();
}
