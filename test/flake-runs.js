#!/usr/bin/env node
// `node test/flake-runs.js [runs] [--resilience] [paths...]`: the flake budget's measurement
// (docs/testing.md "Flakes"). Runs the main suite (or the resilience suite) `runs` times in a row
// (default 5) on this checkout, keeps jest's JSON of each run under .data/flake-runs/, and prints
// every test that failed in any run with how often, then exits 1 when one did. A test that fails
// once in twenty runs is a defect to fix, not to retry: this is how it is found. Each run's jest
// output is in the .log beside its results. Paths (jest's test path patterns) limit each run to
// those files: how a timing-sensitive file is run twenty times without the whole suite.
'use strict';
const { spawnSync } = require('node:child_process');
const {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
} = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const resilience = args.includes('--resilience');
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 5);
const paths = args.filter((a) => !/^\d+$/.test(a) && a !== '--resilience');
if (paths.some((a) => a.startsWith('-'))) {
  console.error(`unknown option in ${paths.join(' ')}: [runs] [--resilience] [paths...]`);
  process.exit(2);
}
const outDir = path.join(root, '.data', 'flake-runs');
const exitReports = path.join(root, '.data', 'worker-exit');

/** The worker-exit reports written since `since` (ms). */
function workerExitReports(since) {
  if (!existsSync(exitReports)) return [];
  return readdirSync(exitReports)
    .map((name) => path.join(exitReports, name))
    .filter((file) => statSync(file).mtimeMs >= since)
    .map((file) => path.relative(root, file));
}
mkdirSync(outDir, { recursive: true });

const jestBin = require.resolve('jest/bin/jest');
const config = resilience ? ['--config', 'test/resilience/jest.config.js'] : [];
const failures = new Map();
for (let run = 1; run <= runs; run++) {
  const began = Date.now();
  const base = path.join(outDir, `${resilience ? 'resilience' : 'main'}-${process.pid}-${run}`);
  const file = `${base}.json`;
  // jest's own report (one line per file) goes to a log beside the results, not the terminal.
  const log = openSync(`${base}.log`, 'w');
  const jest = spawnSync(
    process.execPath,
    [jestBin, ...config, '--silent', '--json', `--outputFile=${file}`, ...paths],
    { cwd: root, stdio: ['ignore', 'ignore', log] },
  );
  closeSync(log);
  const minutes = ((Date.now() - began) / 60_000).toFixed(1);
  if (!existsSync(file)) {
    console.log(`run ${run}: jest wrote no results (status ${jest.status}) after ${minutes} min`);
    failures.set('(the whole run)', (failures.get('(the whole run)') ?? 0) + 1);
    continue;
  }
  const result = JSON.parse(readFileSync(file, 'utf8'));
  const failed = [];
  for (const suite of result.testResults) {
    const name = path.relative(root, suite.name);
    const tests = suite.assertionResults.filter((a) => a.status === 'failed');
    // A file that failed outside its tests (setup, a leaked resource) counts as the file.
    if (suite.status === 'failed' && tests.length === 0) failed.push(name);
    for (const t of tests) failed.push(`${name} › ${t.fullName}`);
  }
  for (const f of failed) failures.set(f, (failures.get(f) ?? 0) + 1);
  // A file that leaves something running: jest force-exits its worker (or waits, in band).
  const leaked = /failed to exit gracefully|did not exit one second/.test(
    readFileSync(`${base}.log`, 'utf8'),
  );
  console.log(
    `run ${run}: ${result.numPassedTests}/${result.numTotalTests} passed in ${minutes} min` +
      (failed.length ? `; failed: ${failed.join('; ')}` : '') +
      (leaked ? '; jest: a worker did not exit (see the .log)' : ''),
  );
  // What kept each such worker alive (test/helpers/worker-exit-report.js).
  for (const report of workerExitReports(began)) console.log(`  worker report: ${report}`);
}
console.log(`\n${runs} runs; tests that failed at least once: ${failures.size}`);
for (const [name, count] of failures) console.log(`  ${count}/${runs}  ${name}`);
process.exit(failures.size ? 1 : 0);
