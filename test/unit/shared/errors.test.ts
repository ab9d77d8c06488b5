import { runInNewContext } from 'node:vm';
import { AppError, coerceError, isInternalCode, PayloadInvalid } from '../../../shared/errors';

describe('coerceError', () => {
  test('an Error is returned as it is, stack and cause included', () => {
    const cause = new Error('inner');
    const err = new TypeError('outer', { cause });
    expect(coerceError(err)).toBe(err);
    expect(coerceError(err).cause).toBe(cause);
  });

  test('an Error of another realm is returned as it is, not wrapped', () => {
    const foreign = runInNewContext('new RangeError("from elsewhere")') as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(coerceError(foreign)).toBe(foreign);
    expect(coerceError(foreign).message).toBe('from elsewhere');
  });

  test('a thrown string becomes the message; the value is kept as the cause', () => {
    const err = coerceError('disk on fire');
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe('disk on fire');
    expect(err.cause).toBe('disk on fire');
  });

  test.each([
    [undefined, 'non-Error thrown: undefined'],
    [null, 'non-Error thrown: null'],
    [42, 'non-Error thrown: 42'],
    [{ code: 7 }, 'non-Error thrown: [object Object]'],
  ])('%p becomes an Error saying %p', (value, message) => {
    const err = coerceError(value);
    expect(err.message).toBe(message);
    expect(err.cause).toBe(value);
  });
});

describe('AppError options', () => {
  test('message, details and cause are named, not positional', () => {
    const cause = new Error('socket closed');
    const err = new AppError('DEPENDENCY_UNAVAILABLE', {
      message: 'try later',
      details: { retryAfterSeconds: 5 },
      cause,
    });
    expect(err.message).toBe('try later');
    expect(err.details).toEqual({ retryAfterSeconds: 5 });
    expect(err.cause).toBe(cause);
    expect(err.status).toBe(503);
  });

  test('without options: the catalogue message, no details, no cause', () => {
    const err = new AppError('NOT_FOUND');
    expect(err.status).toBe(404);
    expect(err.details).toBeUndefined();
    expect('cause' in err).toBe(false);
  });
});

describe('PayloadInvalid', () => {
  test('names what was read and what is wrong, under the one code PAYLOAD_INVALID', () => {
    const err = new PayloadInvalid('exception-ingest', 'malformed reportId');
    expect(err).toBeInstanceOf(AppError);
    expect([err.name, err.code, err.status]).toEqual(['PayloadInvalid', 'PAYLOAD_INVALID', 500]);
    expect(err.message).toBe('exception-ingest: malformed reportId');
    expect([err.kind, err.reason]).toEqual(['exception-ingest', 'malformed reportId']);
    expect(err.details).toEqual({ kind: 'exception-ingest', reason: 'malformed reportId' });
  });
});

test.each([
  ['PAYLOAD_INVALID', true],
  ['CONFIG_INVALID', true],
  ['STORE_INCONSISTENT', true],
  ['INTERNAL', false],
  ['UPLOAD_FAILED', false],
  ['NOT_FOUND', false],
] as const)('%s is internal: %p', (code, internal) => {
  expect(isInternalCode(code)).toBe(internal);
});
