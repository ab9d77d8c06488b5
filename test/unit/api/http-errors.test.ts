/** Outages are told by class or code (issue 23), never by an error's message text. */
import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { isDependencyOutage, toAppError } from '../../../api/http-errors';
import { AppError, PayloadInvalid } from '../../../shared/errors';
import { RedisUnavailableError } from '../../../shared/storage/redis';

const withCode = (code: string) => Object.assign(new Error('socket'), { code });

test.each([
  ['AppError DEPENDENCY_UNAVAILABLE', new AppError('DEPENDENCY_UNAVAILABLE'), true],
  ['AppError NOT_FOUND', new AppError('NOT_FOUND'), false],
  ['RedisUnavailableError', new RedisUnavailableError(new Error('Connection is closed.')), true],
  ['MongoNetworkError', new MongoNetworkError('connection reset'), true],
  [
    'MongoServerSelectionError',
    new MongoServerSelectionError('no server', {
      type: 'Unknown',
      servers: new Map(),
      stale: false,
      compatible: true,
      heartbeatFrequencyMS: 10_000,
      localThresholdMS: 15,
      setName: null,
      maxElectionId: null,
      maxSetVersion: null,
      commonWireVersion: 0,
      logicalSessionTimeoutMinutes: null,
    } as unknown as ConstructorParameters<typeof MongoServerSelectionError>[1]),
    true,
  ],
  ['MongoServerError (the server answered)', new MongoServerError({ message: 'E11000' }), false],
  ['ECONNREFUSED', withCode('ECONNREFUSED'), true],
  ['ECONNRESET', withCode('ECONNRESET'), true],
  ['ETIMEDOUT', withCode('ETIMEDOUT'), true],
  ['ENOSPC (not an outage of a service)', withCode('ENOSPC'), false],
  // The texts the old regexes matched no longer decide anything on their own.
  ['plain "Connection is closed."', new Error('Connection is closed.'), false],
  ['plain "connect ECONNREFUSED" text', new Error('connect ECONNREFUSED 127.0.0.1:6379'), false],
  ['a string', 'ECONNREFUSED', false],
  ['null', null, false],
])('%s → outage: %p', (_name, err, expected) => {
  expect(isDependencyOutage(err)).toBe(expected);
});

/** Internal codes (shared/errors.ts) name a failure for logs and jobs; a client still sees INTERNAL. */
test.each([
  ['PayloadInvalid', new PayloadInvalid('apk-ingest', 'uploadId is no upload id')],
  ['AppError CONFIG_INVALID', new AppError('CONFIG_INVALID')],
  ['AppError STORED_DATA_UNAUTHENTIC', new AppError('STORED_DATA_UNAUTHENTIC')],
  ['AppError WEBHOOK_DELIVERY_FAILED', new AppError('WEBHOOK_DELIVERY_FAILED')],
])('%s is answered 500 INTERNAL with the catalogue text, keeping it as the cause', (_n, err) => {
  const reply = toAppError(err);
  expect([reply.status, reply.code, reply.message]).toEqual([500, 'INTERNAL', 'Internal error.']);
  expect(reply.cause).toBe(err);
});

test('a client-facing AppError is answered as it is', () => {
  const err = new AppError('NOT_FOUND', { message: 'no such app' });
  expect(toAppError(err)).toBe(err);
});
