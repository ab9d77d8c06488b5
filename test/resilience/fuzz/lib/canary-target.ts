/**
 * A target that misbehaves on purpose, to prove the harness notices: input `i` does behaviour
 * `i % 6`: answer, throw a TypeError, spin forever, allocate 200 MiB at once, throw the parsers'
 * own ApkFormatError (a verdict, not a crash), return a promise that never settles.
 */
import { ApkFormatError } from '../../../../shared/apk/issues';
import type { Outcome, Target } from './targets';

export const CANARY_BEHAVIOURS = [
  'ok',
  'type-error',
  'spin',
  'allocate',
  'typed-error',
  'never-settles',
] as const;

function run(bytes: Buffer): Promise<Outcome> {
  const behaviour = CANARY_BEHAVIOURS[bytes[0] ?? 0];
  try {
    switch (behaviour) {
      case 'type-error': {
        const missing = (bytes as unknown as { missing?: { field: number } }).missing;
        return Promise.resolve({ verdict: String(missing!.field) });
      }
      case 'spin':
        for (;;) bytes[1] = ((bytes[1] ?? 0) + 1) & 0xff;
      case 'allocate':
        return Promise.resolve({ verdict: `ok ${Buffer.alloc(200 * 1024 * 1024).length}` });
      case 'typed-error':
        throw new ApkFormatError('NOT_A_ZIP', 'canary');
      case 'never-settles':
        return new Promise<Outcome>(() => undefined);
      default:
        return Promise.resolve({ verdict: 'ok' });
    }
  } catch (err) {
    if (err instanceof ApkFormatError) return Promise.resolve({ verdict: err.code });
    const e = err as Error;
    return Promise.resolve({ verdict: 'CRASH', crash: { message: `${e.name}: ${e.message}` } });
  }
}

export const CANARY: Target = {
  name: 'canary',
  generate: (_rng, _corpus, index) => ({
    bytes: Buffer.from([index % CANARY_BEHAVIOURS.length, 0]),
    how: `canary:${CANARY_BEHAVIOURS[index % CANARY_BEHAVIOURS.length]}`,
  }),
  run,
  needsKeys: false,
};
