// Names what keeps a jest worker alive after jest asked it to exit. jest-worker's child ends by
// dropping its message listener and waiting for the event loop to empty; jest force-exits it 500 ms
// later ("A worker process has failed to exit gracefully"), which says nothing of the cause. In
// each worker process this listens for jest's end message and, 400 ms after it (or at jest's
// SIGTERM, if the event loop was too busy for that timer), while the process is still alive,
// writes its open handles, active resources, the ref'd timers still pending with where each was
// made (timer-origins.js) and the test files the worker ran to `.data/worker-exit/<pid>.log`.
// `npm run test:flakes` lists those files.
'use strict';
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { setTimeout } = require('node:timers');
const { performance } = require('node:perf_hooks');
const { pendingTimerOrigins } = require('./timer-origins');

const STATE = Symbol.for('apkrelay.workerExitReport');
/** jest-worker's CHILD_MESSAGE_END (jest-worker/build/types). */
const CHILD_MESSAGE_END = 2;
const REPORT_AFTER_MS = 400;

/** One line per open handle: its kind, and a socket's addresses or a child's pid. */
function describe(handle) {
  const kind = handle?.constructor?.name ?? typeof handle;
  if (typeof handle?.pid === 'number') return `${kind} pid ${handle.pid}`;
  if (handle && ('remotePort' in handle || 'localPort' in handle)) {
    return `${kind} ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`;
  }
  return kind;
}

function report(dir, files, when) {
  const std = new Set([process.stdin, process.stdout, process.stderr]);
  const handles = process._getActiveHandles().filter((h) => !std.has(h));
  const timers = pendingTimerOrigins();
  const text = [
    `jest worker ${process.pid} still running ${when}`,
    `test files it ran (${files.length}):\n  ${files.join('\n  ')}`,
    `handles:\n  ${handles.map(describe).join('\n  ') || '(none)'}`,
    `resources: ${process.getActiveResourcesInfo().join(', ')}`,
    `ref'd timers pending (${timers.length}), where each was made:\n  ${timers.join('\n  ') || '(none recorded)'}`,
  ].join('\n');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${process.pid}.log`), `${text}\n`);
}

/** Arms the report once per jest worker process (nothing in band: no jest-worker parent). */
function armWorkerExitReport(rootDir, testPath) {
  if (typeof process.send !== 'function' || !process.env.JEST_WORKER_ID) return;
  let state = process[STATE];
  if (!state) {
    state = process[STATE] = { files: [] };
    const onMessage = (message) => {
      if (!Array.isArray(message) || message[0] !== CHILD_MESSAGE_END) return;
      // A 'message' listener keeps the IPC channel referenced: this one must go too.
      process.removeListener('message', onMessage);
      const dir = path.join(rootDir, '.data', 'worker-exit');
      const asked = performance.now();
      let written = false;
      const once = (when) => {
        if (!written) report(dir, state.files, when);
        written = true;
      };
      setTimeout(
        () => once(`${REPORT_AFTER_MS} ms after it read jest's end message`),
        REPORT_AFTER_MS,
      ).unref();
      // jest's force exit is a SIGTERM at 500 ms: a worker whose event loop was too busy for the
      // timer above (a loaded machine) still says what it held, and how late it was.
      process.once('SIGTERM', () => {
        const late = Math.round(performance.now() - asked);
        once(
          `${late} ms after it read jest's end message, at jest's SIGTERM (its ${REPORT_AFTER_MS} ms timer had not run)`,
        );
        process.exit(143);
      });
    };
    process.on('message', onMessage);
  }
  state.files.push(path.relative(rootDir, testPath));
}

module.exports = { armWorkerExitReport };
