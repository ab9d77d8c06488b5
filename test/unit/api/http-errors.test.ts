/** Outages are told by class or code (issue 23), never by an error's message text. */
import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { isDependencyOutage } from '../../../api/http-errors';
import { AppError } from '../../../shared/errors';
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
