import { runInNewContext } from 'node:vm';
import { coerceError } from '../../../../device-client/core/errors';

test('an Error is returned as it is', () => {
  const err = new TypeError('bad');
  expect(coerceError(err)).toBe(err);
});

test('an Error of another realm (a vm context, the runtime fetch) is not wrapped', () => {
  const foreign = runInNewContext('new Error("fetch failed")') as unknown;
  expect(foreign instanceof Error).toBe(false);
  expect(coerceError(foreign)).toBe(foreign);
  expect(coerceError(foreign).message).toBe('fetch failed');
});

test.each([
  ['disk on fire', 'disk on fire'],
  [undefined, 'non-Error thrown: undefined'],
  [{ message: 'looks like one' }, 'non-Error thrown: [object Object]'],
])('%p becomes an Error saying %p, kept as the cause', (value, message) => {
  const err = coerceError(value);
  expect(err.message).toBe(message);
  expect(err.cause).toBe(value);
});
