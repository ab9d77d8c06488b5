/**
 * The APK package's own error helper (shared/apk/errors.ts): the message a caught value gives to
 * the parse and verify errors the package reports, whatever was thrown.
 */
import { runInNewContext } from 'node:vm';
import { messageOf } from '../../../../shared/apk/errors';

test('an Error gives its message', () => {
  expect(messageOf(new TypeError('bad DER'))).toBe('bad DER');
});

test('an Error of another realm gives its message too', () => {
  const foreign = runInNewContext('new RangeError("from elsewhere")') as unknown;
  expect(foreign instanceof Error).toBe(false);
  expect(messageOf(foreign)).toBe('from elsewhere');
});

test.each([
  ['disk on fire', 'disk on fire'],
  [undefined, 'non-Error thrown: undefined'],
  [null, 'non-Error thrown: null'],
  [42, 'non-Error thrown: 42'],
  [{ code: 7 }, 'non-Error thrown: [object Object]'],
])('%p gives %p', (value, message) => {
  expect(messageOf(value)).toBe(message);
});
