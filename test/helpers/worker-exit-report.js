// Names what keeps a jest worker alive after jest asked it to exit. jest-worker's child ends by
// dropping its message listener and waiting for the event loop to empty; jest force-exits it 500 ms
// later ("A worker process has failed to exit gracefully"), which says nothing of the cause. In
// each worker process this listens for jest's end message and, 400 ms after it (or at jest's
// SIGTERM, if the event loop was too busy for that timer), while the process is still alive,
// writes its open handles, active resources, the ref'd timers still pending with where each was
// made (timer-origins.js) and the test files the worker ran to `.data/worker-exit/<pid>.log`.
// `npm run test:flakes` lists those files.
'use strict';
const { appendFileSync, mkdirSync, rmSync, writeFileSync } = require('node:fs');
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

function report(files, when) {
  const std = new Set([process.stdin, process.stdout, process.stderr]);
  const handles = process._getActiveHandles().filter((h) => !std.has(h));
  const timers = pendingTimerOrigins();
  return [
    `still running ${when}`,
    `test files it ran (${files.length}):\n  ${files.join('\n  ')}`,
    `handles:\n  ${handles.map(describe).join('\n  ') || '(none)'}`,
    `resources: ${process.getActiveResourcesInfo().join(', ')}`,
    `ref'd timers pending (${timers.length}), where each was made:\n  ${timers.join('\n  ') || '(none recorded)'}`,
  ].join('\n');
}

/**
 * From jest's end message on, the worker's file says what it saw: at once "end message read"
 * (removed again if the process exits within the report's delay), then the report at 400 ms or
 * at jest's SIGTERM, and the moment of the process's own `exit` event if it comes late. A file
 * holding only its first line means the worker ran no JavaScript after reading the message
 * (its event loop blocked, or its exit stuck in native code) until jest killed it.
 */
function onEnd(rootDir, files) {
  const dir = path.join(rootDir, '.data', 'worker-exit');
  const file = path.join(dir, `${process.pid}.log`);
  const asked = performance.now();
  const since = () => Math.round(performance.now() - asked);
  const note = (text) => appendFileSync(file, `${text}\n`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `jest worker ${process.pid} read jest's end message\n`);
  let reported = false;
  const once = (when) => {
    if (!reported) note(report(files, when));
    reported = true;
  };
  setTimeout(() => once(`${since()} ms after it read jest's end message`), REPORT_AFTER_MS).unref();
  // jest's force exit is a SIGTERM at 500 ms: a worker whose event loop was too busy for the
  // timer above (a loaded machine) still says what it held, and how late it was.
  process.once('SIGTERM', () => {
    once(`${since()} ms after it read jest's end message, at jest's SIGTERM`);
    process.exit(143);
  });
  process.once('exit', () => {
    if (reported || since() >= REPORT_AFTER_MS)
      note(`exit event ${since()} ms after the end message`);
    else rmSync(file, { force: true });
  });
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
      onEnd(rootDir, state.files);
    };
    process.on('message', onMessage);
  }
  state.files.push(path.relative(rootDir, testPath));
}

module.exports = { armWorkerExitReport };
