#!/usr/bin/env node
// `npm run test:resilience [-- --report [--record]] [-- jest arguments]`: runs the resilience
// suite with jest; with --report, sums the figures every test recorded (test/resilience/report.ts),
// prints them, writes them to test-output/resilience-report.md, and fails when a promise of the
// suite is broken (fewer than 100,000 inputs fuzzed, any crash, hang, wrong verdict,
// acknowledged item lost or unexpected allow). --record (a whole-suite run only) also puts that
// report into docs/resilience.md, between its report markers: the doc's figures are a run's own.
'use strict';
const { spawnSync, execFileSync } = require('node:child_process');
const { mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const args = process.argv.slice(2);
const report = args.includes('--report') || args.includes('--record');
const record = args.includes('--record');
const jestArgs = args.filter((a) => a !== '--report' && a !== '--record');
if (record && jestArgs.some((a) => !a.startsWith('-'))) {
  console.error('--record takes a run of the whole suite: no test paths');
  process.exit(2);
}

const reportDir = path.join(root, '.data', 'resilience');
// One file per run: several runs (developers' subsets) may go side by side.
const reportFile = path.join(reportDir, `figures-${process.pid}.jsonl`);
const jestResults = path.join(reportDir, `jest-${process.pid}.json`);
mkdirSync(reportDir, { recursive: true });
rmSync(reportFile, { force: true });
rmSync(jestResults, { force: true });
const began = Date.now();

// The whole suite takes about 12 minutes on 2 cores. A jest that outlives its run is ended by the
// global teardown's watchdog (test/helpers/exit-watchdog.ts); this deadline is for anything else
// that would hold CI until its own, so the report below is still printed. Jest stopped that way
// skips its global teardown: the test services stay up for the next run to reuse or stop.
const DEADLINE_MS = Number(process.env.APKRELAY_RESILIENCE_DEADLINE_MS ?? 40 * 60_000);
const jest = spawnSync(
  process.execPath,
  [
    require.resolve('jest/bin/jest'),
    '--config',
    'test/resilience/jest.config.js',
    // Files and tests run, for the report (jest's own output still goes to the terminal).
    ...(report ? ['--json', `--outputFile=${jestResults}`] : []),
    ...jestArgs,
  ],
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

const ROWS = [
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
const MUST_BE_ZERO = [
  'crashes',
  'hangs',
  'wrongVerdicts',
  'acknowledgedLost',
  'unexpectedAllows',
  'unexpectedDenies',
];

/** The figures the tests recorded: totals, and per section. */
function readFigures() {
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
  return { totals, sections };
}

/** What the run was: when, at which commit, how long, how many files and tests. */
function describeRun() {
  const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
  let commit = 'unknown';
  try {
    commit =
      git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain') ? ' + changes' : '');
  } catch {
    // not a git checkout
  }
  const results = existsSync(jestResults) ? JSON.parse(readFileSync(jestResults, 'utf8')) : {};
  return {
    date: new Date(began).toISOString().slice(0, 10),
    commit,
    minutes: ((Date.now() - began) / 60_000).toFixed(1),
    files: results.numTotalTestSuites ?? 0,
    tests: results.numTotalTests ?? 0,
    failedTests: results.numFailedTests ?? 0,
  };
}

/** The report as Markdown: what docs/resilience.md shows between its markers. */
function markdown(run, n, sections, broken) {
  const out = [
    `Run on ${run.date} at \`${run.commit}\`, ${run.files} files, ${run.tests} tests ` +
      `(${run.failedTests} failed), ${run.minutes} minutes; ` +
      (broken.length ? `promises broken: ${broken.join('; ')}.` : 'all promises held.'),
    '',
    '| figure | value |',
    '| --- | ---: |',
    ...ROWS.map(([label, key]) => `| ${label} | ${n(key).toLocaleString('en-US')} |`),
    '',
    'By section:',
    '',
    ...Object.entries(sections)
      .sort()
      .map(
        ([section, f]) =>
          `- ${section}: ${Object.entries(f)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
      ),
  ];
  return `${out.join('\n')}\n`;
}

const BEGIN = '<!-- resilience report: written by `npm run test:resilience -- --record` -->';
const END = '<!-- end of the resilience report -->';

/** Replaces the report between the markers of docs/resilience.md. */
function recordInDoc(text) {
  const doc = path.join(root, 'docs', 'resilience.md');
  const before = readFileSync(doc, 'utf8');
  const from = before.indexOf(BEGIN);
  const to = before.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/resilience.md: markers not found (${BEGIN})`);
  writeFileSync(doc, `${before.slice(0, from + BEGIN.length)}\n\n${text}\n${before.slice(to)}`);
  console.log('  recorded in docs/resilience.md');
}

if (report) {
  const { totals, sections } = readFigures();
  const n = (key) => totals[key] ?? 0;
  console.log('\nResilience report');
  for (const [label, key] of ROWS)
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
  for (const key of MUST_BE_ZERO) if (n(key) > 0) broken.push(`${key} = ${n(key)}`);
  if (n('faultsInjected') === 0) broken.push('no fault injected');
  if (n('accessChecks') === 0) broken.push('no access check run');
  if (broken.length) {
    console.log(`  FAILED: ${broken.join('; ')}`);
    status = status || 1;
  } else {
    console.log('  all promises held');
  }
  const text = markdown(describeRun(), n, sections, broken);
  const out = path.join(root, 'test-output');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'resilience-report.md'), text);
  console.log('  written to test-output/resilience-report.md');
  if (record) recordInDoc(text);
}
rmSync(reportFile, { force: true });
rmSync(jestResults, { force: true });
process.exit(status);
