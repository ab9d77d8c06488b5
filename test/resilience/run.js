#!/usr/bin/env node
// `npm run test:resilience [-- --report] [-- jest arguments]`: runs the resilience suite with
// jest; with --report, sums the figures every test recorded (test/resilience/report.ts), prints
// them, and fails when a promise of the suite is broken (fewer than 100,000 inputs fuzzed, any
// crash, hang, wrong verdict, acknowledged item lost or unexpected allow).
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdirSync, readFileSync, rmSync, existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const args = process.argv.slice(2);
const report = args.includes('--report');
const jestArgs = args.filter((a) => a !== '--report');

const reportDir = path.join(root, '.data', 'resilience');
// One file per run: several runs (developers' subsets) may go side by side.
const reportFile = path.join(reportDir, `figures-${process.pid}.jsonl`);
mkdirSync(reportDir, { recursive: true });
rmSync(reportFile, { force: true });

// The whole suite takes about 12 minutes on 2 cores. A jest that outlives its run is ended by the
// global teardown's watchdog (test/helpers/exit-watchdog.ts); this deadline is for anything else
// that would hold CI until its own, so the report below is still printed. Jest stopped that way
// skips its global teardown: the test services stay up for the next run to reuse or stop.
const DEADLINE_MS = Number(process.env.APKRELAY_RESILIENCE_DEADLINE_MS ?? 40 * 60_000);
const jest = spawnSync(
  process.execPath,
  [require.resolve('jest/bin/jest'), '--config', 'test/resilience/jest.config.js', ...jestArgs],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, APKRELAY_RESILIENCE_REPORT: reportFile },
    timeout: DEADLINE_MS,
    killSignal: 'SIGTERM',
  },
);
if (jest.error?.code === 'ETIMEDOUT')
  console.error(`resilience suite: jest still running after ${DEADLINE_MS / 60_000} min; stopped`);
let status = jest.status ?? 1;

if (report) {
  const totals = {};
  const sections = {};
  const lines = existsSync(reportFile) ? readFileSync(reportFile, 'utf8').split('\n') : [];
  for (const line of lines.filter(Boolean)) {
    const { section, ...figures } = JSON.parse(line);
    for (const [key, value] of Object.entries(figures)) {
      totals[key] = (totals[key] ?? 0) + value;
      sections[section] ??= {};
      sections[section][key] = (sections[section][key] ?? 0) + value;
    }
  }
  const rows = [
    ['inputs fuzzed', 'inputsFuzzed'],
    ['crashes', 'crashes'],
    ['hangs', 'hangs'],
    ['wrong verdicts', 'wrongVerdicts'],
    ['hostile requests sent', 'abuseCases'],
    ['faults injected', 'faultsInjected'],
    ['acknowledged items', 'acknowledgedItems'],
    ['acknowledged items lost', 'acknowledgedLost'],
    ['access checks run', 'accessChecks'],
    ['unexpected allows', 'unexpectedAllows'],
    ['unexpected denies', 'unexpectedDenies'],
  ];
  const n = (key) => totals[key] ?? 0;
  console.log('\nResilience report');
  for (const [label, key] of rows)
    console.log(`  ${label.padEnd(26)} ${n(key).toLocaleString('en-US')}`);
  console.log('  by section:');
  for (const [section, figures] of Object.entries(sections).sort()) {
    const text = Object.entries(figures)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    console.log(`    ${section}: ${text}`);
  }
  const broken = [];
  if (n('inputsFuzzed') < 100_000) broken.push('fewer than 100,000 inputs fuzzed');
  for (const key of [
    'crashes',
    'hangs',
    'wrongVerdicts',
    'acknowledgedLost',
    'unexpectedAllows',
    'unexpectedDenies',
  ])
    if (n(key) > 0) broken.push(`${key} = ${n(key)}`);
  if (n('faultsInjected') === 0) broken.push('no fault injected');
  if (n('accessChecks') === 0) broken.push('no access check run');
  if (broken.length) {
    console.log(`  FAILED: ${broken.join('; ')}`);
    status = status || 1;
  } else {
    console.log('  all promises held');
  }
}
rmSync(reportFile, { force: true });
process.exit(status);
