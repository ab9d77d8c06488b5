// Entry point of a fuzz worker thread (and of replay.js): loads the TypeScript sources through a
// minimal transpile-only require hook (the `typescript` package the project already has), with
// inline source maps so stack traces name .ts lines, then runs the module given in workerData.
'use strict';
const { readFileSync } = require('node:fs');
const ts = require('typescript');

if (!require.extensions['.ts']) {
  process.setSourceMapsEnabled(true);
  require.extensions['.ts'] = (module, filename) => {
    const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        inlineSourceMap: true,
        inlineSources: false,
      },
    });
    module._compile(outputText, filename);
  };
}

const { isMainThread, workerData } = require('node:worker_threads');
if (!isMainThread && workerData && workerData.entry) require(workerData.entry);
module.exports = {};
