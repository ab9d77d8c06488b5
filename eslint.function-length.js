// Short functions (issue 23): no function in the server, the device client or the CLI runs past
// 80 lines of code (blank lines and comments not counted). Used by eslint.config.mjs and checked
// by test/unit/eslint.function-length.test.ts.
const FOLDERS = ['api', 'workers', 'shared', 'device-client', 'ops/cli', 'ops/services'];

module.exports = [
  {
    files: FOLDERS.map((f) => `${f}/**/*.ts`),
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
];
