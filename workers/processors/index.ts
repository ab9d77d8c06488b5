/** The processor of every registered queue; the type makes a missing one a compile error. */
import path from 'node:path';
import type { PayloadOf, ResultOf } from '../../shared/queues/definition';
import type { RegisteredQueue } from '../../shared/queues';
import type { Processor } from '../processor';
import { housekeepingProcessor } from './housekeeping';

export type ProcessorMap = {
  [Q in RegisteredQueue as Q['name']]: Processor<PayloadOf<Q>, ResultOf<Q>>;
};

export interface ProcessorDeps {
  readonly dataDir: string;
  readonly now: () => number;
}

export function stagingDir(dataDir: string): string {
  return path.join(dataDir, 'staging');
}

export function createProcessors(deps: ProcessorDeps): ProcessorMap {
  return {
    housekeeping: housekeepingProcessor({ stagingDir: stagingDir(deps.dataDir), now: deps.now }),
  };
}
