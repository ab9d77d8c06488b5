import { withDeadline } from '../../../shared/deadline';
import { AppError } from '../../../shared/errors';

const never = () => new Promise<never>(() => undefined);

test('work that never settles is rejected at its deadline with the named code, and its signal aborted', async () => {
  let seen: AbortSignal | undefined;
  const outcome = await withDeadline({ ms: 30, what: 'screenshot put' }, (signal) => {
    seen = signal;
    return never();
  }).catch((err: unknown) => err);
  expect(outcome).toBeInstanceOf(AppError);
  expect((outcome as AppError).code).toBe('STEP_DEADLINE_EXCEEDED');
  expect((outcome as AppError).message).toBe(
    'screenshot put: no result within 30 ms (STEP_DEADLINE_EXCEEDED)',
  );
  expect((outcome as AppError).details).toEqual({ what: 'screenshot put', deadlineMs: 30 });
  expect(seen?.aborted).toBe(true);
});

test('a job budget names JOB_DEADLINE_EXCEEDED', async () => {
  const outcome = await withDeadline(
    { ms: 20, what: 'exception-ingest job 7', code: 'JOB_DEADLINE_EXCEEDED' },
    never,
  ).catch((err: unknown) => err);
  expect((outcome as AppError).code).toBe('JOB_DEADLINE_EXCEEDED');
});

test('work that settles in time gives its own value or error, and its signal stays quiet', async () => {
  let seen: AbortSignal | undefined;
  const value = await withDeadline({ ms: 10_000, what: 'x' }, (signal) => {
    seen = signal;
    return Promise.resolve(42);
  });
  expect(value).toBe(42);
  expect(seen?.aborted).toBe(false);
  await expect(
    withDeadline({ ms: 10_000, what: 'x' }, () => Promise.reject(new Error('refused'))),
  ).rejects.toThrow('refused');
});

test('a parent signal (a closing worker) ends the wait with its own reason', async () => {
  const parent = new AbortController();
  const waiting = withDeadline({ ms: 10_000, what: 'x', parent: parent.signal }, never);
  parent.abort(new Error('worker closing'));
  await expect(waiting).rejects.toThrow('worker closing');
});
