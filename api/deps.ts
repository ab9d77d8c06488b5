import type { AccountsService } from '../shared/accounts/service';
import type { Logger } from '../shared/log';

/** Liveness of what the API depends on, for /readyz. Each check answers quickly. */
export interface ReadinessChecks {
  redis(): Promise<boolean>;
  mongo(): Promise<boolean>;
  /** True when every registered queue has at least one live worker. */
  workers(): Promise<boolean>;
}

/** Everything the HTTP layer needs, built once in api/main.ts; no env reads, no globals. */
export interface ApiDeps {
  readonly log: Logger;
  readonly accounts: AccountsService;
  readonly readiness: ReadinessChecks;
  readonly publicUrls: { readonly base: string; readonly web: string; readonly push: string };
}
