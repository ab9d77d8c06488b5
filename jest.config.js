// ts-jest compiles TypeScript to CommonJS. p-retry@7 and its dependency are ESM-only, so they are
// allow-listed for transformation instead of running jest in experimental ESM mode.
const esmOnly = ['p-retry', 'is-network-error'];

/** @type {import('jest').Config} */
module.exports = {
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The resilience suite runs on its own: `npm run test:resilience` (test/resilience/jest.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/resilience/'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testEnvironment: '<rootDir>/test/helpers/environment.js',
  testTimeout: 60_000,
  maxWorkers: 2,
};
