/**
 * Starts a `worker_threads` thread running one of this folder's modules, in the same form as the
 * code that asks for it. In production this file is dist/'s compiled JS, so the thread runs the
 * compiled module beside it, built by the same `tsc` run. Under jest (ts-jest) this file is the
 * TypeScript source, so the thread runs the `.ts` source too, compiled as it loads by a `require`
 * hook calling TypeScript's `transpileModule` (the same per-file compilation ts-jest does; the
 * `typescript` package is a dev dependency, present wherever sources run). The form is read from
 * this file's own name, never from a setting or from what exists on disk, so a test cannot run a
 * stale dist/ and production never needs TypeScript. (Node's own type stripping cannot load these
 * sources: their imports have no extensions.) The project's other thread,
 * shared/apk/signing/off-thread-hash.ts, evaluates a string of built-ins only; this one needs
 * project modules and pako.
 */
import path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const FROM_SOURCES = path.extname(__filename) === '.ts';

/** The thread's bootstrap when running from sources: compile `.ts` on load, then run the entry. */
const TS_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const ts = require(workerData.typescript);
const compilerOptions = {
  module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true,
  inlineSourceMap: true, inlineSources: true,
};
require.extensions['.ts'] = (module, filename) => {
  const source = readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
require(workerData.entry);
`;

/**
 * A thread running `name` (a module of this folder, without extension) with `workerData`. From
 * sources, `workerData` gains the bootstrap's `entry` and `typescript` fields.
 */
export function startModuleThread(
  name: string,
  options: Omit<WorkerOptions, 'eval' | 'workerData'> & { workerData: Record<string, unknown> },
): Worker {
  if (!FROM_SOURCES) return new Worker(path.join(__dirname, `${name}.js`), options);
  const workerData = {
    ...options.workerData,
    entry: path.join(__dirname, `${name}.ts`),
    typescript: require.resolve('typescript'),
  };
  return new Worker(TS_BOOTSTRAP, { ...options, eval: true, workerData });
}
