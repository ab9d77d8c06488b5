// Where the timers still pending were made. A test environment records, for every timer a test
// file's code makes (its own, and the code it loads: ioredis, BullMQ, the product), the file and the
// first lines of the stack, in one registry per process; a timer leaves it when it fires (once) or
// is cleared. The exit watchdog (exit-watchdog.ts) lists the ref'd ones still there: a timer keeps
// a process alive, and Node has no public way to list timers.
'use strict';
const { promisify } = require('node:util');

const REGISTRY = Symbol.for('apkrelay.timerOrigins');
/** @returns {Map<object, string>} */
function registry() {
  return (process[REGISTRY] ??= new Map());
}

function originOf(testPath) {
  const frames = (new Error().stack ?? '').split('\n').slice(3, 11);
  return `${testPath}\n      ${frames.map((f) => f.trim()).join('\n      ')}`;
}

let made = 0;
/** Forgets, now and then, timers ended without a clear we saw (`timer.close()`): no retention. */
function prune(timers) {
  if (++made % 1000 !== 0) return;
  for (const timer of timers.keys()) if (timer._destroyed === true) timers.delete(timer);
}

/** Wraps `global`'s setTimeout/setInterval and their clears to record each timer's origin. */
function recordTimerOrigins(global, testPath) {
  const timers = registry();
  const wrap = (make, once) => {
    const wrapped = function (fn, ...rest) {
      if (typeof fn !== 'function') return make(fn, ...rest);
      let timer;
      const run = once
        ? function (...args) {
            timers.delete(timer);
            return fn.apply(this, args);
          }
        : fn;
      timer = make(run, ...rest);
      timers.set(timer, originOf(testPath));
      prune(timers);
      return timer;
    };
    if (make[promisify.custom]) wrapped[promisify.custom] = make[promisify.custom];
    return wrapped;
  };
  const forget = (clear) =>
    function (timer) {
      timers.delete(timer);
      return clear(timer);
    };
  global.setTimeout = wrap(global.setTimeout, true);
  global.setInterval = wrap(global.setInterval, false);
  global.clearTimeout = forget(global.clearTimeout);
  global.clearInterval = forget(global.clearInterval);
}

/** The origins of the timers still pending that keep the process alive (ref'd). */
function pendingTimerOrigins() {
  const left = [];
  for (const [timer, origin] of registry()) {
    if (timer._destroyed === true || (typeof timer.hasRef === 'function' && !timer.hasRef()))
      continue;
    left.push(origin);
  }
  return left;
}

module.exports = { recordTimerOrigins, pendingTimerOrigins };
