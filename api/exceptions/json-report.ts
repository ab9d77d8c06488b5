/** The JSON API's exception body, turned into report fields (validation is the report's). */
import type { MetadataEntry, ReportFields } from '../../shared/exceptions/report';
import { ReportInvalid } from '../../shared/exceptions/report';

function strings(value: unknown, name: string, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  problems.push(`${name} must be a list of strings`);
  return [];
}

/** `[{key, value}]` or a `{key: value}` object (its keys may hold any character). */
function entries(value: unknown, name: string, problems: string[]): MetadataEntry[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    const ok = value.every(
      (e) =>
        typeof e === 'object' &&
        e !== null &&
        typeof (e as MetadataEntry).key === 'string' &&
        typeof (e as MetadataEntry).value === 'string',
    );
    if (ok) return (value as MetadataEntry[]).map(({ key, value: v }) => ({ key, value: v }));
  } else if (typeof value === 'object') {
    const pairs = Object.entries(value as Record<string, unknown>);
    if (pairs.every(([, v]) => typeof v === 'string')) {
      return pairs.map(([key, v]) => ({ key, value: v as string }));
    }
  }
  problems.push(`${name} must be [{key, value}] or an object of strings`);
  return [];
}

export function jsonReportFields(body: unknown): ReportFields {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ReportInvalid(['the body must be a JSON object']);
  }
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  const str = (k: string) => {
    if (b[k] === undefined || b[k] === null) return undefined;
    if (typeof b[k] === 'string') return b[k];
    problems.push(`${k} must be a string`);
    return undefined;
  };
  const fields: ReportFields = {
    package: str('package'),
    hash: str('hash'),
    deviceId: str('deviceId'),
    stack: strings(b.stack, 'stack', problems),
    log: strings(b.log, 'log', problems),
    metadata: entries(b.metadata, 'metadata', problems),
    extra: entries(b.extra, 'extra', problems),
    screen: str('screen'),
    handled: typeof b.handled === 'boolean' ? b.handled : b.handled === undefined ? false : 'x',
  };
  if (problems.length > 0) throw new ReportInvalid(problems);
  return fields;
}
