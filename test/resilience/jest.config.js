// The resilience suite (`npm run test:resilience`): the project's jest setup (real services, leak
// guard), limited to test/resilience, one file at a time: the fuzzers use every core they get and
// the fault tests restart services of their own.
const base = require('../../jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/resilience'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 300_000,
  maxWorkers: 1,
};
