/**
 * The PushLink exception form (`application/x-www-form-urlencoded; charset=UTF-8`), parsed into
 * report fields. Pure. Parameters come in any order; `st[]` and `lc[]` repeat one line each;
 * metadata pairs are `userInfo<i>[]` given twice, key first, then value, ordered by `i`. Names may
 * arrive percent-encoded (`st%5B%5D`). Unknown parameters are ignored.
 */
import type { MetadataEntry, ReportFields } from './report';

export interface ParsedForm {
  /** `api_key` (secret: never logged, never enqueued). */
  readonly apiKey: string | undefined;
  readonly fields: ReportFields;
}

const USER_INFO = /^userInfo(\d{1,6})\[\]$/;

export function parseExceptionForm(body: string): ParsedForm {
  const params = new URLSearchParams(body);
  const single = (name: string) => {
    const value = params.get(name);
    return value === null ? undefined : value;
  };
  const pairs = new Map<number, string[]>();
  for (const [name, value] of params) {
    const match = USER_INFO.exec(name);
    if (!match) continue;
    const index = Number(match[1]);
    const list = pairs.get(index) ?? [];
    list.push(value);
    pairs.set(index, list);
  }
  const metadata: MetadataEntry[] = [...pairs.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, [key = '', value = '']]) => ({ key, value }));
  return {
    apiKey: single('api_key') ?? single('apiKey'),
    fields: {
      package: single('package'),
      hash: single('hash'),
      deviceId: single('deviceId'),
      stack: params.getAll('st[]'),
      log: params.getAll('lc[]'),
      metadata,
      extra: [],
      screen: single('screen'),
      handled: single('handled'),
    },
  };
}
