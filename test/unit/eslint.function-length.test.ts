/**
 * The function-length bound is a lint error (eslint.function-length.js): in the server, device
 * client and CLI folders a function of 81 code lines is refused, one of 80 passes however many
 * blank and comment lines it has; test code is not bound.
 */
import path from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const functionLength = require('../../eslint.function-length.js') as Linter.Config[];
const root = path.resolve(__dirname, '../..');

function errorsOf(file: string, source: string): string[] {
  const linter = new Linter({ cwd: root });
  const config: Linter.Config[] = [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    ...functionLength,
  ];
  return linter.verify(source, config, path.join(root, file)).map((m) => m.ruleId ?? 'parse');
}

/** A function of `lines` lines in all: its header, `lines - 2` statements, its closing brace. */
function functionOf(lines: number, extra = ''): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};${extra}`);
  return ['export function f(): void {', ...body, '}', ''].join('\n');
}

/** The same, with a blank line and a comment line after each statement. */
function paddedFunctionOf(lines: number): string {
  return functionOf(lines, '\n\n  // a comment line');
}

test.each([
  'api/uploads/receive-upload.ts',
  'workers/uploads/ingest-processor.ts',
  'shared/apk/v1/verify-v1.ts',
  'device-client/core/ports.ts',
  'ops/cli/commands/start.ts',
  'ops/services/embedded.ts',
])('%s: 81 code lines are an error, 80 are not', (file) => {
  expect(errorsOf(file, functionOf(81))).toEqual(['max-lines-per-function']);
  expect(errorsOf(file, functionOf(80))).toEqual([]);
  expect(errorsOf(file, paddedFunctionOf(80))).toEqual([]);
});

test('test code is not bound', () => {
  expect(errorsOf('test/unit/example.test.ts', functionOf(200))).toEqual([]);
});
