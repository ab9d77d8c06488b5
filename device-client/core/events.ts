/** What a client reports to observers (the simulator prints these with `--json`). */
export type ClientEvent =
  | { readonly event: 'registered'; readonly status: 'enabled' | 'disabled' }
  | {
      readonly event: 'version';
      readonly md5: string;
      readonly apkId: string;
      readonly versionCode: number;
    }
  | {
      readonly event: 'downloaded';
      readonly md5: string;
      readonly verified: boolean;
      readonly reason?: string;
    }
  | { readonly event: 'apply'; readonly md5: string; readonly uri: string }
  | { readonly event: 'install'; readonly md5: string; readonly ok: boolean }
  | { readonly event: 'giveup'; readonly apkId: string; readonly md5: string | null }
  | {
      readonly event: 'exception';
      readonly status: 'REGISTERED' | 'QUEUED' | 'LOST';
      readonly fingerprint: string;
      readonly reason: string | null;
    }
  | { readonly event: 'refused'; readonly what: string; readonly reason: string }
  /**
   * The push stream ended (the server or the network closed it; not the client's own close),
   * after every event it carried was handled: a marker for "nothing more came on it". The client
   * reconnects after its backoff.
   */
  | { readonly event: 'stream-ended' }
  | { readonly event: 'error'; readonly message: string };

export type EventListener = (event: ClientEvent) => void;
