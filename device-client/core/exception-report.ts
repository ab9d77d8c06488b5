/** An error turned into the JSON report body, and its fingerprint (identical reports match). */
import type { ExceptionBody } from './exception-queue';
import { canonicalJson } from '../protocol/canonical-json';

export function stackLines(error: unknown): string[] {
  if (error instanceof Error) {
    const stack = error.stack ?? `${error.name}: ${error.message}`;
    const lines = stack
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l !== '');
    // V8 puts "Name: message" first; other engines give only frames.
    if (!lines[0]?.includes(error.message)) lines.unshift(`${error.name}: ${error.message}`);
    return lines;
  }
  return [`Error: ${typeof error === 'string' ? error : (canonicalJson(error) ?? String(error))}`];
}

/** cyrb53, twice with two seeds: 106 bits, pure and portable (no crypto port before start). */
function hash53(text: string, seed: number): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

export function fingerprint(value: unknown): string {
  const text = canonicalJson(value);
  return hash53(text, 1) + hash53(text, 2);
}

export function exceptionReport(input: {
  error: unknown;
  handled: boolean;
  extra: Readonly<Record<string, string>>;
  metadata: ReadonlyArray<{ key: string; value: string }>;
  packageName: string;
  deviceId: string;
  hash: string | null;
}): { fingerprint: string; body: ExceptionBody } {
  const stack = stackLines(input.error);
  const extra = Object.entries(input.extra).map(([key, value]) => ({ key, value: String(value) }));
  return {
    // Identical: same stack, same label, same extra map. Metadata may change between reports.
    fingerprint: fingerprint({ stack, handled: input.handled, extra }),
    body: {
      package: input.packageName,
      hash: input.hash,
      deviceId: input.deviceId,
      stack,
      handled: input.handled,
      metadata: input.metadata,
      extra,
    },
  };
}
