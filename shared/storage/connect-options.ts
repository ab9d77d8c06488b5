import type { Logger } from '../log';

/** What the API and worker processes both need to connect: the stores and the master keys. */
export interface ConnectOptions {
  readonly log: Logger;
  readonly redisUrl: string;
  readonly mongoUrl: string;
  readonly database?: string;
  readonly queuePrefix: string;
  readonly masterKey: Buffer;
  /** MASTER_KEY_PREVIOUS: keys that only open what was sealed before a rotation. */
  readonly previousMasterKeys?: readonly Buffer[];
}
