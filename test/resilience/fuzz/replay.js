#!/usr/bin/env node
// Replays saved fuzz inputs: `node test/resilience/fuzz/replay.js <target> <file>...` or
// `node test/resilience/fuzz/replay.js <file.bin>...` for files the fuzzer saved (the target is
// read from the JSON beside them). Prints each outcome with its stack and exits 1 if any
// input still crashes. Hangs are not timed here: a hanging input simply does not return.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');
require('./lib/worker-bootstrap.js');
const { TARGETS } = require('./lib/targets.ts');

async function main(args) {
  const target = TARGETS[args[0]] ? args.shift() : null;
  let failed = false;
  for (const file of args) {
    const info =
      file.endsWith('.bin') && existsSync(`${file.slice(0, -4)}.json`)
        ? JSON.parse(readFileSync(`${file.slice(0, -4)}.json`, 'utf8'))
        : {};
    const name = target ?? info.target;
    if (!TARGETS[name])
      throw new Error(`no target for ${file}: give one of ${Object.keys(TARGETS).join(', ')}`);
    const started = performance.now();
    const outcome = await TARGETS[name].run(readFileSync(file));
    const ms = (performance.now() - started).toFixed(1);
    console.log(`${file}: ${name} -> ${outcome.verdict} in ${ms} ms`);
    if (outcome.crash) {
      failed = true;
      console.log(outcome.crash.stack ?? outcome.crash.message);
    }
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
