/** What a processor gets besides its payload, for tests that call a processor directly. */
import { createLogger } from '../../shared/log';
import type { JobContext } from '../../workers/processor';

export function jobContext(attempt = 1, maxAttempts = 1): JobContext {
  return {
    jobId: '1',
    attempt,
    maxAttempts,
    log: createLogger('silent'),
    signal: new AbortController().signal,
    defer: () => Promise.reject(new Error('this test does not expect a job to be put back')),
    progress: () => Promise.resolve(),
  };
}
